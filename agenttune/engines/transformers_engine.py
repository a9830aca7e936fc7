"""Batched local generation with transformers: every conversation of a turn decoded together, token by token.

The engine runs its own decode loop on the model's forward pass and a :class:`~transformers.DynamicCache`,
rather than ``model.generate``, for two savings that matter in multi-turn rollouts:

* **Shared prefix.** Prompts in one batch usually open with the same system prompt and tool schemas. That
  common prefix is run through the model once and its key/value cache repeated for every row; only each row's
  own suffix is prefilled. Rows are laid out ``[prefix][padding][suffix]`` with position ids that skip the
  padding, so each row sees exactly the tokens and positions it would see alone. Models with recurrent
  (linear-attention) layers would carry state through the padding, so for them the shared prefix is empty
  and rows are plainly left-padded.
* **Finished rows leave the batch.** A row that emits a stop token is dropped from the cache and the batch at
  once, so later steps only compute rows that are still generating.

Sampling is chosen by ``temperature`` (0 means greedy) and ``top_p``; generation stops at the tokenizer's
stop tokens (eos, ``<|im_end|>``) or after ``max_new_tokens``. Each chosen token's logprob is
``log_softmax(raw_logits / T)`` at that step (T = 1 when greedy), the convention TRL uses to score completions,
so the logged values are comparable with the trainer's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
from transformers import DynamicCache

from agenttune.engines.base import Engine, Generation, Message
from agenttune.engines.templates import stop_token_ids


@dataclass
class _Batch:
    """The rows still generating: their original indices, cache, attention mask and last position id."""

    rows: torch.Tensor
    cache: DynamicCache
    attention_mask: torch.Tensor
    positions: torch.Tensor

    def keep(self, live: torch.Tensor) -> None:
        index = live.nonzero()[:, 0]
        self.rows = self.rows[index]
        self.cache.batch_select_indices(index)
        self.attention_mask = self.attention_mask[index]
        self.positions = self.positions[index]


class TransformersEngine(Engine):
    token_exact = True

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        max_new_tokens: int = 128,
        temperature: float = 0.7,
        top_p: float = 1.0,
    ) -> None:
        self.model = model
        self.tokenizer = tokenizer
        self.stop_ids = stop_token_ids(tokenizer)
        self.pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else self.stop_ids[0]
        self.max_new_tokens = max_new_tokens
        self.temperature = temperature
        self.top_p = top_p

    def generate(
        self,
        conversations: list[list[Message]],
        tools: list[dict[str, Any]] | None = None,
        prompt_ids: list[list[int]] | None = None,
    ) -> list[Generation]:
        prompt_ids = self._prompt_token_ids(conversations, tools, prompt_ids)
        if not prompt_ids:
            return []
        was_training = self.model.training
        self.model.eval()
        try:
            with torch.no_grad():
                completions, logprobs = self._decode(prompt_ids)
        finally:
            self.model.train(was_training)
        return [
            self._generation(prompt, ids, scores)
            for prompt, ids, scores in zip(prompt_ids, completions, logprobs, strict=True)
        ]

    def _decode(self, prompts: list[list[int]]) -> tuple[list[list[int]], list[list[float]]]:
        """Sample up to ``max_new_tokens`` per prompt; a row stops after its first stop token (kept)."""
        batch, logits = self._prefill(prompts)
        stop_ids = torch.tensor(self.stop_ids, device=self.model.device)
        completions: list[list[int]] = [[] for _ in prompts]
        logprobs: list[list[float]] = [[] for _ in prompts]
        for step in range(self.max_new_tokens):
            tokens, scores = self._sample(logits)
            for row, token, score in zip(batch.rows.tolist(), tokens.tolist(), scores.tolist(), strict=True):
                completions[row].append(token)
                logprobs[row].append(score)
            live = ~torch.isin(tokens, stop_ids)
            if step == self.max_new_tokens - 1 or not live.any():
                break
            if not live.all():
                batch.keep(live)
                tokens = tokens[live]
            logits = self._step(batch, tokens)
        return completions, logprobs

    def _step(self, batch: _Batch, tokens: torch.Tensor) -> torch.Tensor:
        """Append one token to every row of ``batch``; return the next-token logits."""
        batch.attention_mask = torch.nn.functional.pad(batch.attention_mask, (0, 1), value=1)
        batch.positions = batch.positions + 1
        return self._forward(tokens[:, None], batch, batch.positions[:, None])

    def _prefill(self, prompts: list[list[int]]) -> tuple[_Batch, torch.Tensor]:
        """Run the shared prefix once, then every row's suffix; return the batch and next-token logits."""
        device = self.model.device
        shared = self._shared_prefix_length(prompts)
        cache = DynamicCache(config=self.model.config)
        if shared:
            prefix = torch.tensor([prompts[0][:shared]], dtype=torch.long, device=device)
            self.model(input_ids=prefix, cache=cache, use_cache=True, logits_to_keep=1)
            cache.batch_repeat_interleave(len(prompts))
        suffixes = [prompt[shared:] for prompt in prompts]
        width = max(len(s) for s in suffixes)
        ids = torch.full((len(prompts), width), self.pad_id, dtype=torch.long, device=device)
        suffix_mask = torch.zeros((len(prompts), width), dtype=torch.long, device=device)
        for row, suffix in enumerate(suffixes):
            ids[row, width - len(suffix) :] = torch.tensor(suffix, dtype=torch.long, device=device)
            suffix_mask[row, width - len(suffix) :] = 1
        prefix_mask = torch.ones((len(prompts), shared), dtype=torch.long, device=device)
        batch = _Batch(
            rows=torch.arange(len(prompts), device=device),
            cache=cache,
            attention_mask=torch.cat([prefix_mask, suffix_mask], dim=1),
            positions=torch.tensor([len(p) - 1 for p in prompts], device=device),
        )
        positions = (shared + suffix_mask.cumsum(1) - 1).clamp(min=0)
        return batch, self._forward(ids, batch, positions)

    def _shared_prefix_length(self, prompts: list[list[int]]) -> int:
        """Tokens every prompt starts with, leaving each row at least one token of its own.

        0 for a single prompt (nothing to share) and for models with non-attention layers (unsafe, see above).
        """
        layer_types = getattr(self.model.config.get_text_config(), "layer_types", None) or []
        if len(prompts) == 1 or any(kind != "full_attention" for kind in layer_types):
            return 0
        limit = min(len(p) for p in prompts) - 1
        first = prompts[0]
        for length in range(limit):
            if any(p[length] != first[length] for p in prompts):
                return length
        return max(limit, 0)

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
