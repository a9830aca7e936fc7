"""The batched transformers engine: batching changes nothing, logprobs are the model's, stop tokens end turns."""

from __future__ import annotations

import copy

import torch

from agenttune.engines.base import Request
from agenttune.engines.templates import encode, render
from agenttune.engines.transformers_engine import TransformersEngine

CONVERSATIONS = [
    [{"role": "user", "content": "hi"}],
    [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "a much longer question, about things"},
    ],
]


def test_batched_greedy_matches_one_at_a_time(tokenizer, tiny_model):
    engine = TransformersEngine(tiny_model, tokenizer, max_new_tokens=5, temperature=0.0)
    batched = engine.generate(CONVERSATIONS)
    alone = [engine.generate([c])[0] for c in CONVERSATIONS]
    for together, single, conversation in zip(batched, alone, CONVERSATIONS, strict=True):
        assert together.prompt_ids == encode(tokenizer, render(tokenizer, conversation, None, True))
        assert together.completion_ids == single.completion_ids
        assert torch.allclose(torch.tensor(together.logprobs), torch.tensor(single.logprobs), atol=1e-4)


def test_logprobs_are_the_models_scores_of_the_sampled_tokens(tokenizer, tiny_model):
    temperature = 0.8
    engine = TransformersEngine(tiny_model, tokenizer, max_new_tokens=6, temperature=temperature)
    [generation] = engine.generate(CONVERSATIONS[:1])
    ids = torch.tensor([generation.prompt_ids + generation.completion_ids])
    with torch.no_grad():
        logits = tiny_model(ids).logits[0, len(generation.prompt_ids) - 1 : -1]
    expected = torch.log_softmax(logits / temperature, -1).gather(
        1, ids[0, len(generation.prompt_ids) :, None]
    )
    assert torch.allclose(torch.tensor(generation.logprobs), expected[:, 0], atol=1e-4)
    assert generation.finish_reason == "length" and len(generation.completion_ids) == 6


def test_generation_stops_at_end_of_turn(tokenizer, tiny_model):
    """A model whose scores always favour <|im_end|> stops after one token, with an empty text."""
    stop = tokenizer.convert_tokens_to_ids("<|im_end|>")
    head = torch.nn.Linear(tiny_model.config.hidden_size, tiny_model.config.vocab_size, bias=True)
    torch.nn.init.zeros_(head.weight)
    with torch.no_grad():
        head.bias.zero_()
        head.bias[stop] = 10.0
    tiny_model.lm_head = head
    engine = TransformersEngine(tiny_model, tokenizer, max_new_tokens=8, temperature=0.0)
    [generation] = engine.generate(CONVERSATIONS[:1])
    assert (
        generation.completion_ids == [stop] and generation.finish_reason == "stop" and generation.text == ""
    )
    vocab = tiny_model.config.vocab_size
    assert (
        abs(generation.logprobs[0] - (10.0 - torch.logsumexp(torch.tensor([10.0] + [0.0] * (vocab - 1)), 0)))
        < 1e-4
    )


def test_rows_without_a_shared_prefix_match_one_at_a_time(tokenizer, tiny_model):
    """Left padding only (no common first token): the rows still decode as they would alone."""
    engine = TransformersEngine(tiny_model, tokenizer, max_new_tokens=5, temperature=0.0)
    prompts = [[5, 6, 7, 8, 9], [11, 12]]
    assert engine._prefix_groups(prompts) == [(0, [0]), (0, [1])]
    conversations = [CONVERSATIONS[0]] * 2
    together = engine.generate(conversations, prompt_ids=prompts)
    for generation, prompt in zip(together, prompts, strict=True):
        [single] = engine.generate(conversations[:1], prompt_ids=[prompt])
        assert generation.completion_ids == single.completion_ids


def test_shared_prefix_leaves_each_row_a_token_and_needs_two_rows(tokenizer, tiny_model, monkeypatch):
    engine = TransformersEngine(tiny_model, tokenizer)
    assert engine._prefix_groups([[1, 2, 3, 4], [1, 2, 3, 5, 6]]) == [(3, [0, 1])]
    assert engine._prefix_groups([[1, 2, 3], [1, 2, 3, 4]]) == [(2, [0, 1])]
    assert engine._prefix_groups([[1, 2, 3]]) == [(0, [0])]
    layers = tiny_model.config.num_hidden_layers
    monkeypatch.setattr(tiny_model.config, "layer_types", ["linear_attention"] * layers, raising=False)
    assert engine._prefix_groups([[1, 2, 3, 4], [1, 2, 3, 5, 6]]) == [(0, [0, 1])]


def test_prompts_of_two_systems_share_a_prefix_per_group(tokenizer, tiny_model):
    """A batch mixing two long prefixes (tau2's domains) shares each within its rows, not only their first
    token, and every row decodes as it would alone."""
    engine = TransformersEngine(tiny_model, tokenizer, max_new_tokens=5, temperature=0.0)
    first, second = list(range(100, 140)), list(range(100, 102)) + list(range(300, 330))
    prompts = [first + [7, 8], second + [9], first + [10], second + [11, 12, 13], [5, 6]]
    assert engine._prefix_groups(prompts) == [(0, [4]), (40, [0, 2]), (32, [1, 3])]
    conversations = [CONVERSATIONS[0]] * len(prompts)
    together = engine.generate(conversations, prompt_ids=prompts)
    for generation, prompt in zip(together, prompts, strict=True):
        [single] = engine.generate(conversations[:1], prompt_ids=[prompt])
        assert generation.completion_ids == single.completion_ids
        assert torch.allclose(torch.tensor(generation.logprobs), torch.tensor(single.logprobs), atol=1e-4)


class StopAfterMarker(torch.nn.Module):
    """The tiny model, except that a row whose last input token is ``marker`` is made to emit ``stop``."""

    def __init__(self, model: torch.nn.Module, marker: int, stop: int) -> None:
        super().__init__()
        self.inner, self.marker, self.stop = model, marker, stop

    @property
    def config(self):
        return self.inner.config

    @property
    def device(self):
        return self.inner.device

    def forward(self, input_ids: torch.Tensor, **kwargs):
        output = self.inner(input_ids=input_ids, **kwargs)
        hit = input_ids[:, -1] == self.marker
        output.logits[hit, -1] = -1e4
        output.logits[hit, -1, self.stop] = 1e4
        return output


def test_a_row_that_stops_leaves_the_batch_without_disturbing_the_others(tokenizer, tiny_model):
    stop = tokenizer.convert_tokens_to_ids("<|im_end|>")
    marker = 42
    model = StopAfterMarker(tiny_model, marker, stop)
    engine = TransformersEngine(model, tokenizer, max_new_tokens=6, temperature=0.0)
    prompts = [[7, 8, 9, 10, 11], [7, 8, 9, marker], [7, 8, 12, 13, 14, 15]]
    conversations = [CONVERSATIONS[0]] * 3
    together = engine.generate(conversations, prompt_ids=prompts)
    assert together[1].completion_ids == [stop] and together[1].finish_reason == "stop"
    for index in (0, 2):
        [alone] = engine.generate(conversations[:1], prompt_ids=[prompts[index]])
        assert together[index].completion_ids == alone.completion_ids
        assert torch.allclose(torch.tensor(together[index].logprobs), torch.tensor(alone.logprobs), atol=1e-4)


def test_top_p_samples_only_from_the_nucleus(tokenizer, tiny_model):
    engine = TransformersEngine(tiny_model, tokenizer, temperature=1.0, top_p=0.5)
    logits = torch.log(torch.tensor([[0.6, 0.3, 0.1], [0.2, 0.45, 0.35]])).repeat(200, 1)
    tokens, logprobs = engine._sample(logits)
    assert set(tokens[0::2].tolist()) == {0}
    assert set(tokens[1::2].tolist()) == {1, 2}
    assert torch.allclose(logprobs, torch.log_softmax(logits, -1).gather(1, tokens[:, None])[:, 0])


def test_served_turns_decode_as_their_prompts_would_alone(tokenizer, tiny_model):
    """Continuous batching: rows end turns at different steps, are fed their follow-ups (only the new ids when
    a prompt extends the row's cache, all of it when it does not) while the others decode; every turn still
    equals a one-row run of its prompt."""
    stop = tokenizer.convert_tokens_to_ids("<|im_end|>")
    marker = 42
    engine = TransformersEngine(
        StopAfterMarker(tiny_model, marker, stop), tokenizer, max_new_tokens=5, temperature=0.0
    )
    prompts = [[7, 8, 9, 10, 11], [7, 8, 9, marker], [7, 8, 13, 14, 15, 16]]  # row 1 stops at once
    served: dict[int, list] = {0: [], 1: [], 2: []}

    def follow_up(index, generation):
        served[index].append(generation)
        if len(served[index]) == 3:
            return None
        if index == 2 and len(served[index]) == 1:
            return Request([], prompt_ids=[30, 31, 32])  # not an extension: the row starts afresh
        extra = {0: [20, 21], 1: [22, 23], 2: [24]}[index]
        return Request([], prompt_ids=generation.prompt_ids + generation.completion_ids + extra)

    engine.serve([Request([], prompt_ids=prompt) for prompt in prompts], follow_up)
    assert [len(turns) for turns in served.values()] == [3, 3, 3]
    assert served[1][0].completion_ids == [stop] and len(served[1][1].completion_ids) == 5
    for turns in served.values():
        for generation in turns:
            [alone] = engine.generate([[]], prompt_ids=[generation.prompt_ids])
            assert generation.completion_ids == alone.completion_ids
            assert torch.allclose(torch.tensor(generation.logprobs), torch.tensor(alone.logprobs), atol=1e-4)


def recorded_forwards(monkeypatch, model) -> list[dict]:
    """The keyword inputs of every forward ``model`` runs from now on, appended as it runs."""
    calls = []
    forward = model.forward

    def recording(*args, **kwargs):
        calls.append(kwargs)
        return forward(*args, **kwargs)

    monkeypatch.setattr(model, "forward", recording)
    return calls


def test_at_most_max_concurrent_requests_decode_and_a_waiting_one_takes_a_finished_row(
    tokenizer, tiny_model, monkeypatch
):
    """A bounded batch: 5 multi-turn requests through 2 rows; a waiting request starts only when an episode ends,
    in a row of its own, and every turn still equals a one-row run of its prompt."""
    engine = TransformersEngine(tiny_model, tokenizer, max_new_tokens=4, temperature=0.0, max_concurrent=2)
    turns = [1, 3, 2, 1, 2]  # how many turns each request runs
    served: dict[int, list] = {index: [] for index in range(len(turns))}
    order = []

    def follow_up(index, generation):
        served[index].append(generation)
        order.append(index)
        if len(served[index]) == turns[index]:
            return None
        return Request([], prompt_ids=generation.prompt_ids + generation.completion_ids + [20 + index])

    prompts = [[7, 8, 9 + index] for index in range(len(turns))]
    forwards = recorded_forwards(monkeypatch, tiny_model)
    engine.serve([Request([], prompt_ids=prompt) for prompt in prompts], follow_up)
    assert [len(served[index]) for index in served] == turns
    assert max(call["input_ids"].shape[0] for call in forwards) == 2
    assert order[:2] == [0, 1] and order.index(2) > 0  # request 2 waits for request 0's row
    assert set(order[: order.index(2)]) <= {0, 1}
    for index, generations in served.items():
        assert generations[0].prompt_ids == prompts[index]
        for generation in generations:
            [alone] = engine.generate([[]], prompt_ids=[generation.prompt_ids])
            assert generation.completion_ids == alone.completion_ids


def test_rows_refilled_together_do_not_widen_the_cache(tokenizer, tiny_model, monkeypatch):
    """8 one-turn requests through 2 rows that all end together: each pair of new prompts replaces the slots of the
    pair before (masked, then dropped), so the cache never holds the slots of more than two prompts a row."""
    engine = TransformersEngine(tiny_model, tokenizer, max_new_tokens=3, temperature=0.0, max_concurrent=2)
    prompts = [[7 + index] * 40 for index in range(8)]
    forwards = recorded_forwards(monkeypatch, tiny_model)
    engine.serve([Request([], prompt_ids=prompt) for prompt in prompts], lambda index, generation: None)
    assert max(call["attention_mask"].shape[1] for call in forwards) <= 2 * (40 + 3)


def test_compacting_the_cache_changes_no_logits(tokenizer, tiny_model):
    engine = TransformersEngine(tiny_model, tokenizer)
    tiny_model.eval()
    with torch.no_grad():
        batch, _ = engine._prefill([[5, 6, 7], [8, 9, 10, 11, 12]])
        for _ in range(12):  # slots no row uses
            engine._step(batch, torch.tensor([3, 3]), torch.tensor([False, False]))
        compacted = copy.deepcopy(batch)
        engine._compact(compacted)
        assert compacted.attention_mask.shape[1] == 5 and batch.attention_mask.shape[1] == 17
        tokens = torch.tensor([13, 14])
        assert torch.allclose(engine._step(batch, tokens), engine._step(compacted, tokens), atol=1e-5)


def test_a_prompt_over_the_context_fails_its_request_alone_and_turns_stop_at_the_context(
    tokenizer, tiny_model
):
    """Context 12: a 12-token prompt is never run (its request gets a failed generation naming both lengths) while
    a 4-token one decodes as it would alone, stopping at the context's end (8 tokens, under max_new_tokens); a
    follow-up that outgrows the context fails that request's next turn."""
    tiny_model.config.max_position_embeddings = 12
    engine = TransformersEngine(tiny_model, tokenizer, max_new_tokens=20, temperature=0.0)
    short, long = [7, 8, 9, 10], list(range(20, 32))
    fits, overflows = engine.generate([[], []], prompt_ids=[short, long])
    assert (
        overflows.error
        == "the prompt has 12 tokens and the model's context holds 12 (max_position_embeddings), so no turn was generated"
    )
    assert not fits.error and fits.finish_reason == "length" and len(fits.completion_ids) == 8
    served: list = []

    def follow_up(index, generation):
        served.append(generation)
        return Request([], prompt_ids=short + [11]) if len(served) == 1 else None

    engine.serve([Request([], prompt_ids=short)], follow_up)
    assert [bool(g.error) for g in served] == [False, False] and len(served[1].completion_ids) == 7
    served.clear()

    def whole_conversation(index, generation):
        served.append(generation)
        if generation.error:
            return None
        return Request([], prompt_ids=generation.prompt_ids + generation.completion_ids)

    engine.serve([Request([], prompt_ids=list(range(7, 15)))], whole_conversation)  # 8 + 4 tokens: then 12
    assert [bool(g.error) for g in served] == [False, True] and "has 12 tokens" in served[1].error


def test_slot_layer_appends_in_place_and_holds_what_concatenation_would():
    from transformers.cache_utils import DynamicLayer

    from agenttune.engines.transformers_engine import SlotLayer

    generator = torch.Generator().manual_seed(0)
    steps = [torch.randn(3, 2, n, 4, generator=generator) for n in (5, 1, 1, 1)]
    slot, plain = SlotLayer(), DynamicLayer()
    pointers = set()
    for step in steps:
        keys, values = slot.update(step, -step)
        pointers.add(keys.data_ptr())
        expected_keys, expected_values = plain.update(step, -step)
        assert torch.equal(keys, expected_keys) and torch.equal(values, expected_values)
    assert len(pointers) == 1  # one buffer: every step was written in place
    for layer in (
        slot,
        plain,
    ):  # rows leave the batch: a new tensor, moved into a fresh buffer on the next step
        layer.batch_select_indices(torch.tensor([0, 2]))
    assert slot._buffers is None  # the old buffers are released at once, not kept beside the selected rows
    step = torch.randn(2, 2, 1, 4, generator=generator)
    assert torch.equal(slot.update(step, step)[0], plain.update(step, step)[0])
    assert slot.get_seq_length() == 9


def test_compute_dtype_runs_every_forward_under_autocast(tokenizer, tiny_model):
    dtypes = set()
    hook = tiny_model.model.layers[0].mlp.down_proj.register_forward_hook(
        lambda module, inputs, output: dtypes.add(output.dtype)
    )
    fp32 = TransformersEngine(tiny_model, tokenizer, max_new_tokens=4, temperature=0.0).generate(
        CONVERSATIONS
    )
    assert dtypes == {torch.float32}
    dtypes.clear()
    engine = TransformersEngine(
        tiny_model, tokenizer, max_new_tokens=4, temperature=0.0, compute_dtype="bfloat16"
    )
    bf16 = engine.generate(CONVERSATIONS)
    assert dtypes == {torch.bfloat16}  # the shared prefix, the suffixes and every decode step
    hook.remove()
    assert {p.dtype for p in tiny_model.parameters()} == {torch.float32}
    for low, full in zip(bf16, fp32, strict=True):  # bfloat16 rounding moves logprobs a little, not a lot
        assert low.completion_ids[0] == full.completion_ids[0]
        assert abs(low.logprobs[0] - full.logprobs[0]) < 0.1
