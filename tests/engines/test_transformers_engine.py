"""The batched transformers engine: batching changes nothing, logprobs are the model's, stop tokens end turns."""

from __future__ import annotations

import torch

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
