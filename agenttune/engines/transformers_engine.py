"""Batched local generation with transformers: every request decoded together, token by token, in one cache.

The engine runs its own decode loop on the model's forward pass and a :class:`~transformers.DynamicCache`,
rather than ``model.generate``, for savings that matter in multi-turn rollouts:

* **Continuous batching.** In :meth:`TransformersEngine.serve` a row whose turn ends hands its generation to the
  caller's follow-up at once (the episode runs its tools there) and goes on with the next turn while the other
  rows keep decoding; nobody waits for the slowest row of a round.
* **Each row keeps its cache across turns.** A follow-up prompt that extends what the row's cache holds (its
  prompt and sampled ids, as full-tier token tracking builds them) is fed only its new ids, in a forward pass of
  the rows being fed. Any other prompt starts the row afresh.
* **Shared prefixes.** Prompts in one batch usually open with the same system prompt and tool schemas; a prefix
  is run once for the rows sharing it and its keys and values repeated for each of them. A batch mixing several
  prompts (tau2's domains, each with its own policy and tools) shares one prefix per group of rows.
* **Finished rows leave the batch** at once, so later steps only compute rows that are still generating.
* **A bounded batch.** At most ``max_concurrent`` requests decode at once (``model.max_concurrent``, what vLLM calls
  ``max_num_seqs``); the others wait, and each takes the row of an episode that ended, starting afresh there. The
  cache holds rows x slots, every row as wide as the widest: 128 CUAD episodes with 2-6k-token contexts at once
  grew past 24 GiB and were killed by the kernel (the GRPO study's 128-question evaluation).
* **Autocast.** With ``compute_dtype`` (``model.compute_dtype``) every forward runs under ``torch.autocast`` to it:
  bfloat16 generates 1.37x faster than float32 on a CPU with AVX512-BF16 (``scripts/bench/cpu_bf16.py``).

A prompt must fit the model's context (``max_position_embeddings``): one that does not is never run; its request
gets a failed generation naming both lengths (the episode loop logs it as an ERROR event and ends that episode
alone). A turn stops at the context's end as at ``max_new_tokens`` (finish reason ``length``).

The cache is one ``[rows, heads, slots, dim]`` tensor per layer (:class:`SlotLayer`: a view of a buffer with spare
slots, so a decode step writes its token in place), so a row's own tokens need not be contiguous:
slots it does not use (left padding, slots added while other rows were fed, its turns before a fresh start) are
masked out of attention, and position ids count only the row's own tokens, so each row sees exactly the tokens
and positions it would see alone. Once unused slots are most of the cache it is compacted. Recurrent
(linear-attention) or sliding-window layers would carry state through, or count, masked slots: for those models
there is no shared prefix, rows are plainly left-padded, and ``serve`` runs turn by turn.

Sampling is chosen by ``temperature`` (0 means greedy) and ``top_p``; a turn stops at the tokenizer's stop
tokens (eos, ``<|im_end|>``) or after ``max_new_tokens``. Each chosen token's logprob is
``log_softmax(raw_logits / T)`` at that step (T = 1 when greedy), the convention TRL uses to score completions,
so the logged values are comparable with the trainer's. With ``extractive_answers`` the text inside
``<answer>...</answer>`` is constrained to a verbatim span of the turn's prompt (:mod:`agenttune.engines.extractive`);
a constrained token's logprob is then the one of the renormalised distribution it was sampled from.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch
from torch.nn.functional import pad
from transformers import DynamicCache
from transformers.cache_utils import DynamicLayer

from agenttune.engines.base import Engine, FollowUp, Generation, Message, Request
from agenttune.engines.extractive import ExtractiveAnswers, collapse, open_answer
from agenttune.engines.templates import stop_token_ids

NextPrompt = Callable[[int, Generation], list[int] | None]


class SlotLayer(DynamicLayer):
    """A DynamicLayer whose keys and values are views of buffers with ``headroom`` spare slots.

    Appending a decode step's token writes it in place; DynamicLayer's ``torch.cat`` copies the whole layer on every
    token, which with long prompts is much of a decode step's time and holds the layer twice while it copies
    (``scripts/bench/rollout.py --part cache``). Assigning other keys or values (row selection, padding,
    compaction) releases the buffers at once; the next append moves what the layer holds into fresh ones.
    """

    headroom = 128
    _buffers: tuple[torch.Tensor, torch.Tensor] | None = None

    @classmethod
    def adopt(cls, layer: DynamicLayer) -> SlotLayer:
        """A SlotLayer holding what ``layer`` holds."""
        slot = cls()
        for name, value in vars(layer).items():
            setattr(slot, name, value)
        return slot

    @property
    def keys(self) -> torch.Tensor | None:
        return self._keys

    @keys.setter
    def keys(self, value: torch.Tensor | None) -> None:
        self._keys = value
        self._release_unless_buffered(value, 0)

    @property
    def values(self) -> torch.Tensor | None:
        return self._values

    @values.setter
    def values(self, value: torch.Tensor | None) -> None:
        self._values = value
        self._release_unless_buffered(value, 1)

    def _release_unless_buffered(self, value: torch.Tensor | None, which: int) -> None:
        if self._buffers is not None and (
            value is None or value.data_ptr() != self._buffers[which].data_ptr()
        ):
            self._buffers = None

    def update(self, key_states: torch.Tensor, value_states: torch.Tensor, *args, **kwargs):
        if not self.is_initialized:
            self.lazy_initialization(key_states, value_states)
        used = self.get_seq_length()
        end = used + key_states.shape[-2]
        if not self._appendable(end):
            self._rebuffer(key_states, value_states, used, end)
        keys, values = self._buffers
        keys[:, :, used:end] = key_states
        values[:, :, used:end] = value_states
        self.keys, self.values = keys[:, :, :end], values[:, :, :end]
        return self.keys, self.values

    def _appendable(self, end: int) -> bool:
        """Whether the buffers are still held (``keys``/``values`` are their leading slots) and ``end`` slots fit."""
        if self._buffers is None:
            return False
        return end <= self._buffers[0].shape[2] and all(
            held.shape[:2] == buffer.shape[:2]
            for held, buffer in zip((self.keys, self.values), self._buffers, strict=True)
        )

    def _rebuffer(self, key_states: torch.Tensor, value_states: torch.Tensor, used: int, end: int) -> None:
        """Fresh buffers of ``end + headroom`` slots holding the layer's ``used`` slots."""
        buffers = []
        for held, new in ((self.keys, key_states), (self.values, value_states)):
            buffer = new.new_empty((*new.shape[:2], end + self.headroom, new.shape[3]))
            if used:
                buffer[:, :, :used] = held
            buffers.append(buffer)
        self._buffers = tuple(buffers)


def slot_cache(config: Any, layers: list[tuple[torch.Tensor, torch.Tensor]] | None = None) -> DynamicCache:
    """A DynamicCache (holding ``layers`` if given) whose full-attention layers are :class:`SlotLayer` s."""
    cache = DynamicCache(layers, config=config)
    cache.layers = [
        SlotLayer.adopt(layer) if type(layer) is DynamicLayer else layer for layer in cache.layers
    ]
    return cache


@dataclass
class _Batch:
    """The rows in the cache: their request indices, the cache, which slots each row uses, its last position."""

    rows: torch.Tensor
    cache: DynamicCache
    attention_mask: torch.Tensor
    positions: torch.Tensor

    def keep(self, index: torch.Tensor) -> None:
        self.rows = self.rows[index]
        self.cache.batch_select_indices(index)
        self.attention_mask = self.attention_mask[index]
        self.positions = self.positions[index]


@dataclass
class _Turn:
    """One request's turn in progress: its prompt ids and what has been sampled after them."""

    prompt: list[int]
    ids: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)
    source: str = ""  # the prompt as text, whitespace collapsed: decoded once, when the turn opens an answer

    def continuation(self, prompt: list[int]) -> tuple[list[int], bool]:
        """The ids to feed for the next ``prompt`` and whether the row must start afresh.

        The cache holds this turn's prompt and every sampled id but the last; a prompt extending that is fed
        only its new ids.
        """
        held = self.prompt + self.ids[:-1]
        if len(prompt) > len(held) and prompt[: len(held)] == held:
            return prompt[len(held) :], False
        return prompt, True


class TransformersEngine(Engine):
    token_exact = True

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        max_new_tokens: int = 128,
        temperature: float = 0.7,
        top_p: float = 1.0,
        compute_dtype: str | None = None,
        extractive_answers: bool = False,
        max_concurrent: int | None = None,
    ) -> None:
        if max_concurrent is not None and max_concurrent < 1:
            raise ValueError(
                f"max_concurrent={max_concurrent}: at least 1 request must decode (or None: all)"
            )
        self.model = model
        self.tokenizer = tokenizer
        self.stop_ids = stop_token_ids(tokenizer)
        self.pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else self.stop_ids[0]
        self.max_new_tokens = max_new_tokens
        self.temperature = temperature
        self.top_p = top_p
        self.compute_dtype = getattr(torch, compute_dtype) if compute_dtype else None
        self.context = getattr(model.config.get_text_config(), "max_position_embeddings", None)
        self.extractive = ExtractiveAnswers(tokenizer, self.stop_ids) if extractive_answers else None
        self.max_concurrent = max_concurrent

    def sync_weights(self, model: Any) -> None:
        """Generate with ``model`` itself, the live object a trainer updates (no copy)."""
        self.model = model

    def generate(
        self,
        conversations: list[list[Message]],
        tools: list[dict[str, Any]] | None = None,
        prompt_ids: list[list[int]] | None = None,
    ) -> list[Generation]:
        prompts = self._prompt_token_ids(conversations, tools, prompt_ids)
        generations: dict[int, Generation] = {}

        def collect(index: int, generation: Generation) -> None:
            generations[index] = generation

        self._run(prompts, collect)
        return [generations[index] for index in range(len(prompts))]

    def serve(self, requests: list[Request], follow_up: FollowUp) -> None:
        """Continuous batching (see the module docstring); turn by turn for models it is unsafe for."""
        if not self._attention_only():
            super().serve(requests, follow_up)
            return

        waiting = deque(range(len(requests)))
        owner: dict[int, int] = {}  # row -> the request it decodes now

        def start(row: int) -> list[int] | None:
            """The prompt of the next waiting request, which the row decodes from now on (None: none waits)."""
            if not waiting:
                return None
            owner[row] = waiting.popleft()
            return self._request_ids(requests[owner[row]])

        def next_prompt(row: int, generation: Generation) -> list[int] | None:
            request = follow_up(owner[row], generation)
            return start(row) if request is None else self._request_ids(request)

        rows = min(len(requests), self.max_concurrent or len(requests))
        self._run([start(row) for row in range(rows)], next_prompt)

    def _request_ids(self, request: Request) -> list[int]:
        ids = None if request.prompt_ids is None else [request.prompt_ids]
        return self._prompt_token_ids([request.conversation], request.tools, ids)[0]

    def _run(self, prompts: list[list[int]], next_prompt: NextPrompt) -> None:
        def within_context(index: int, generation: Generation) -> list[int] | None:
            return self._fitting(index, next_prompt(index, generation), next_prompt)

        fitting = {index: self._fitting(index, prompt, next_prompt) for index, prompt in enumerate(prompts)}
        fitting = {index: prompt for index, prompt in fitting.items() if prompt is not None}
        if not fitting:
            return
        was_training = self.model.training
        self.model.eval()
        try:
            with torch.no_grad(), self._autocast():
                self._decode(fitting, within_context)
        finally:
            self.model.train(was_training)

    def _autocast(self) -> torch.autocast:
        """Every forward of a run under autocast to ``compute_dtype`` (disabled when it is None)."""
        device_type = self.model.device.type
        return torch.autocast(
            device_type,
            self.compute_dtype or torch.get_autocast_dtype(device_type),
            self.compute_dtype is not None,
        )

    def _fitting(self, index: int, prompt: list[int] | None, next_prompt: NextPrompt) -> list[int] | None:
        """``prompt`` if the context holds it and a generated token; else what ``next_prompt`` returns once told
        that this prompt failed (the episode loop ends that episode: None)."""
        while prompt is not None and self.context is not None and len(prompt) >= self.context:
            failure = Generation.failed(
                f"the prompt has {len(prompt)} tokens and the model's context holds {self.context} "
                "(max_position_embeddings), so no turn was generated"
            )
            prompt = next_prompt(index, failure)
        return prompt

    def _turn_budget(self, turn: _Turn) -> int:
        """``max_new_tokens``, or fewer where the context ends first."""
        room = self.max_new_tokens if self.context is None else self.context - len(turn.prompt)
        return min(self.max_new_tokens, room)

    def _decode(self, prompts: dict[int, list[int]], next_prompt: NextPrompt) -> None:
        """Sample every row (request index -> prompt) until its turn ends (stop token, kept, or its budget); then
        hand the turn to ``next_prompt`` and feed the row the prompt it returns, or drop the row if it returns
        ``None``."""
        turns = {index: _Turn(prompt) for index, prompt in prompts.items()}
        batch, logits = self._prefill(list(prompts.values()))
        batch.rows = torch.tensor(list(prompts), device=batch.rows.device)
        stop_ids = torch.tensor(self.stop_ids, device=self.model.device)
        while True:
            rows = batch.rows.tolist()
            if self.extractive is not None:
                self._constrain(logits, [turns[row] for row in rows])
            tokens, scores = self._sample(logits)
            for row, token, score in zip(rows, tokens.tolist(), scores.tolist(), strict=True):
                turns[row].ids.append(token)
                turns[row].logprobs.append(score)
            full = torch.tensor(
                [len(turns[row].ids) >= self._turn_budget(turns[row]) for row in rows], device=tokens.device
            )
            ended = torch.isin(tokens, stop_ids) | full
            feeds: dict[int, tuple[list[int], bool]] = {}  # batch position -> (ids to feed, start afresh)
            for position in ended.nonzero()[:, 0].tolist():
                turn = turns[rows[position]]
                prompt = next_prompt(rows[position], self._generation(turn.prompt, turn.ids, turn.logprobs))
                if prompt is not None:
                    feeds[position] = turn.continuation(prompt)
                    turns[rows[position]] = _Turn(prompt)
            if ended.all() and not feeds:
                return
            logits = self._advance(batch, tokens, ended, feeds)

    def _constrain(self, logits: torch.Tensor, turns: list[_Turn]) -> None:
        """Mask, in place, each row's tokens that would leave a verbatim span inside ``<answer>``."""
        for position, turn in enumerate(turns):
            answer = open_answer(self.tokenizer.decode(turn.ids, skip_special_tokens=False))
            if answer is None:
                continue
            turn.source = turn.source or collapse(
                self.tokenizer.decode(turn.prompt, skip_special_tokens=False)
            )
            allowed = self.extractive.allowed(turn.source, answer)
            kept = logits[position, allowed]
            logits[position] = float("-inf")
            logits[position, allowed] = kept

    def _advance(
        self,
        batch: _Batch,
        tokens: torch.Tensor,
        ended: torch.Tensor,
        feeds: dict[int, tuple[list[int], bool]],
    ) -> torch.Tensor:
        """Drop the rows that ended without a next prompt; append each decoding row's token and feed the others
        their next prompt. Returns the next-token logits of the rows left.
        """
        kept = ~ended
        kept[list(feeds)] = True
        after = kept.cumsum(0) - 1  # a kept row's position once the others are dropped
        if not kept.all():
            index = kept.nonzero()[:, 0]
            batch.keep(index)
            tokens, ended = tokens[index], ended[index]
        logits = self._step(batch, tokens, ~ended) if not ended.all() else None
        if not feeds:
            return logits
        fed = after[list(feeds)]
        chunks = [ids for ids, _ in feeds.values()]
        fresh = torch.tensor([afresh for _, afresh in feeds.values()], device=tokens.device)
        fed_logits = self._feed(batch, fed, chunks, fresh)
        if logits is None:
            return fed_logits
        logits[fed] = fed_logits
        return logits

    def _step(self, batch: _Batch, tokens: torch.Tensor, real: torch.Tensor | None = None) -> torch.Tensor:
        """Append one token to every row (a masked slot where ``real`` is false); return next-token logits."""
        real = torch.ones_like(tokens, dtype=torch.bool) if real is None else real
        batch.attention_mask = torch.cat([batch.attention_mask, real[:, None].long()], dim=1)
        batch.positions = batch.positions + real.long()
        return self._forward(tokens[:, None], batch, batch.positions[:, None])

    def _prefill(self, prompts: list[list[int]]) -> tuple[_Batch, torch.Tensor]:
        """Run each group's shared prefix once, then every row's suffix; return the batch and next-token logits.

        A group's prefix keys and values are repeated for its rows and right-aligned in the cache (shorter
        prefixes behind masked slots), so every row's suffix is fed in one pass."""
        device = self.model.device
        groups = self._prefix_groups(prompts)
        width = max(length for length, _ in groups)
        lengths = torch.zeros(len(prompts), dtype=torch.long, device=device)
        layers: list[tuple[torch.Tensor, torch.Tensor]] = []
        for length, members in groups:
            if not length:
                continue
            prefix_cache = DynamicCache(config=self.model.config)
            prefix = torch.tensor([prompts[members[0]][:length]], dtype=torch.long, device=device)
            self.model(input_ids=prefix, cache=prefix_cache, use_cache=True, logits_to_keep=1)
            if not layers:  # [rows, heads, width, dim] per layer, zeros in the slots a row does not use
                layers = [
                    tuple(
                        t.new_zeros((len(prompts), t.shape[1], width, t.shape[3])) for t in (c.keys, c.values)
                    )
                    for c in prefix_cache.layers
                ]
            for (keys, values), layer in zip(layers, prefix_cache.layers, strict=True):
                keys[members, :, width - length :] = layer.keys
                values[members, :, width - length :] = layer.values
            lengths[members] = length
        cache = slot_cache(self.model.config, layers or None)
        rows = torch.arange(len(prompts), device=device)
        batch = _Batch(
            rows=rows,
            cache=cache,
            attention_mask=(torch.arange(width, device=device) >= width - lengths[:, None]).long(),
            positions=lengths - 1,
        )
        suffixes = [prompt[length:] for prompt, length in zip(prompts, lengths.tolist(), strict=True)]
        return batch, self._feed(batch, rows, suffixes, torch.zeros_like(rows, dtype=torch.bool))

    def _feed(
        self, batch: _Batch, index: torch.Tensor, chunks: list[list[int]], fresh: torch.Tensor
    ) -> torch.Tensor:
        """Append ``chunks[i]`` to row ``index[i]`` (ascending) and return those rows' next-token logits.

        A ``fresh`` row starts over: its earlier slots are masked and its positions restart at 0. Chunks are
        left-padded to one width. When only some rows are fed, they run as a batch of their own on a copy of
        their cache, which is then written back; the other rows get masked slots as wide as the chunks. Either way the
        cache is then compacted (:meth:`_compact`), so masked slots do not pile up as rows are refilled.
        """
        ids, chunk_mask = self._left_padded(chunks)
        start = torch.where(fresh, -1, batch.positions[index])
        attention_mask = torch.cat([batch.attention_mask[index] * ~fresh[:, None], chunk_mask], dim=1)
        positions = (start[:, None] + chunk_mask.cumsum(1)).clamp(min=0)
        last = start + chunk_mask.sum(1)
        if len(index) == len(batch.rows):
            batch.attention_mask, batch.positions = attention_mask, last
            logits = self._forward(ids, batch, positions)
        else:
            layers = [(layer.keys[index], layer.values[index]) for layer in batch.cache.layers]
            fed = _Batch(index, DynamicCache(layers, config=self.model.config), attention_mask, last)
            logits = self._forward(ids, fed, positions)
            batch.attention_mask = pad(batch.attention_mask, (0, ids.shape[1]))
            batch.attention_mask[index] = attention_mask
            batch.positions[index] = last
            for layer, fed_layer in zip(batch.cache.layers, fed.cache.layers, strict=True):
                layer.keys = pad(layer.keys, (0, 0, 0, ids.shape[1]))
                layer.values = pad(layer.values, (0, 0, 0, ids.shape[1]))
                layer.keys[index], layer.values[index] = fed_layer.keys, fed_layer.values
        self._compact(batch)  # rows that started afresh left their earlier slots masked
        return logits

    def _left_padded(self, chunks: list[list[int]]) -> tuple[torch.Tensor, torch.Tensor]:
        """The chunks as one left-padded id tensor and its mask (1 on real ids)."""
        device = self.model.device
        width = max(len(chunk) for chunk in chunks)
        ids = torch.full((len(chunks), width), self.pad_id, dtype=torch.long, device=device)
        mask = torch.zeros((len(chunks), width), dtype=torch.long, device=device)
        for row, chunk in enumerate(chunks):
            ids[row, width - len(chunk) :] = torch.tensor(chunk, dtype=torch.long, device=device)
            mask[row, width - len(chunk) :] = 1
        return ids, mask

    def _compact(self, batch: _Batch) -> None:
        """Once the busiest row uses under half the slots, drop the slots no row needs (order kept)."""
        used = batch.attention_mask
        width = int(used.sum(1).max())
        if used.shape[1] <= 2 * width:
            return
        order = torch.sort(used, dim=1, stable=True).indices[:, -width:]  # each row's used slots, last
        batch.attention_mask = used.gather(1, order)
        for layer in batch.cache.layers:
            index = order[:, None, :, None].expand(-1, layer.keys.shape[1], -1, layer.keys.shape[3])
            layer.keys, layer.values = layer.keys.gather(2, index), layer.values.gather(2, index)

    def _attention_only(self) -> bool:
        """Whether every layer is full attention, so masked slots change nothing (see the module docstring)."""
        layer_types = getattr(self.model.config.get_text_config(), "layer_types", None) or []
        return all(kind == "full_attention" for kind in layer_types)

    def _prefix_groups(self, prompts: list[list[int]]) -> list[tuple[int, list[int]]]:
        """Rows grouped by a prefix they share: ``(prefix length, rows)`` for each group, every row in one group.

        Prompts are sorted, so those sharing long prefixes (one domain's system prompt and tools, one task's
        trials) are neighbours; a row joins the group before it when it shares a prefix with the group's rows
        and joining keeps at least half of the group's shared length. A prefix leaves each row at least one token
        of its own. One group of length 0 for a single prompt and for models with non-attention layers (unsafe,
        see above).
        """
        if len(prompts) == 1 or not self._attention_only():
            return [(0, list(range(len(prompts))))]
        groups: list[tuple[int, list[int]]] = []
        for index in sorted(range(len(prompts)), key=lambda i: prompts[i]):
            prompt = prompts[index]
            if groups:
                length, members = groups[-1]
                first = prompts[members[0]]
                limit = min(len(first) - 1 if len(members) == 1 else length, len(prompt) - 1)
                common = next((i for i in range(limit) if first[i] != prompt[i]), max(limit, 0))
                if common > 0 and (len(members) == 1 or 2 * common >= length):
                    groups[-1] = (common, [*members, index])
                    continue
            groups.append((0, [index]))
        return groups

    def _forward(self, ids: torch.Tensor, batch: _Batch, positions: torch.Tensor) -> torch.Tensor:
        output = self.model(
            input_ids=ids,
            attention_mask=batch.attention_mask,
            position_ids=positions,
            cache=batch.cache,
            use_cache=True,
            logits_to_keep=1,
        )
        return output.logits[:, -1].float()

    def _sample(self, logits: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The next token of each row and its logprob under ``log_softmax(logits / T)``."""
        if self.temperature <= 0:
            tokens = logits.argmax(-1)
            return tokens, torch.log_softmax(logits, -1).gather(1, tokens[:, None])[:, 0]
        logprobs = torch.log_softmax(logits / self.temperature, -1)
        probs = logprobs.exp()
        if self.top_p < 1.0:
            sorted_probs, order = probs.sort(-1, descending=True)
            outside = sorted_probs.cumsum(-1) - sorted_probs > self.top_p
            probs = probs.scatter(1, order, sorted_probs.masked_fill(outside, 0.0))
        tokens = torch.multinomial(probs, 1)[:, 0]
        return tokens, logprobs.gather(1, tokens[:, None])[:, 0]

    def _generation(self, prompt: list[int], ids: list[int], logprobs: list[float]) -> Generation:
        """Decode the text before the stop token (the stop token stays in ``completion_ids``)."""
        stopped = bool(ids) and ids[-1] in self.stop_ids
        return Generation.from_text(
            self.tokenizer.decode(ids[:-1] if stopped else ids, skip_special_tokens=False),
            prompt_ids=list(prompt),
            completion_ids=ids,
            logprobs=logprobs,
            finish_reason="stop" if stopped else "length",
        )
