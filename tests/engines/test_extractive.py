"""Extractive answers: inside <answer> the engine may only copy a verbatim span of the prompt, then close the tag."""

from __future__ import annotations

import pytest
import torch

from agenttune.engines.extractive import ExtractiveAnswers, collapse, open_answer
from agenttune.engines.transformers_engine import TransformersEngine, _Turn
from agenttune.rewards.answer import extract_answer

SOURCE = (
    "[1] doc_id: supply | chars 0-160\nPayment is due monthly. This Agreement shall be governed by the laws of "
    "the State of Nevada. Notices go by mail to the address in Schedule A."
)


@pytest.fixture(scope="module")
def extractive(tokenizer):
    return ExtractiveAnswers(tokenizer, [tokenizer.eos_token_id])


def allowed_after(extractive, source: str, generated: str) -> list[int] | None:
    """What the engine allows after ``generated``: None outside an open answer block."""
    answer = open_answer(generated)
    return None if answer is None else extractive.allowed(collapse(source), answer)


def spell(tokenizer, text: str) -> list[int]:
    return tokenizer(text, add_special_tokens=False)["input_ids"]


def test_outside_an_answer_nothing_is_constrained(extractive):
    assert allowed_after(extractive, SOURCE, "I will search first.") is None
    assert allowed_after(extractive, SOURCE, "<answer>Nevada</answer> and more") is None


@pytest.mark.parametrize("seed", range(5))
def test_whatever_the_model_prefers_the_answer_is_a_verbatim_span(tokenizer, extractive, seed):
    generator = torch.Generator().manual_seed(seed)
    generated = "<answer>"
    for _ in range(40):
        allowed = allowed_after(extractive, SOURCE, generated)
        if allowed is None:
            break
        scores = torch.rand(len(allowed), generator=generator)
        token = allowed[int(scores.argmax())]
        if token == tokenizer.eos_token_id:
            break
        generated += tokenizer.decode([token])
    answer = generated[len("<answer>") :].split("</answer>")[0]
    tag = answer.rfind("<")
    if tag >= 0 and "</answer>".startswith(answer[tag:]):  # stopped while spelling the closing tag
        answer = answer[:tag]
    assert collapse(answer) in collapse(SOURCE)


def test_the_gold_span_and_its_closing_tag_can_be_spelled(tokenizer, extractive):
    generated = "<answer>"
    for token in spell(
        tokenizer, "This Agreement shall be governed by the laws of the State of Nevada.</answer>"
    ):
        allowed = allowed_after(extractive, SOURCE, generated)
        assert allowed is not None and token in allowed, f"{tokenizer.decode([token])!r} after {generated!r}"
        generated += tokenizer.decode([token])
    assert extract_answer(generated) == "This Agreement shall be governed by the laws of the State of Nevada."
    assert allowed_after(extractive, SOURCE, generated) is None


def test_line_breaks_may_be_copied_as_spaces(tokenizer, extractive):
    source = "the Company's trademarks, service\n\n\n\n  marks, and logos"
    generated = "<answer>"
    for token in spell(tokenizer, "trademarks, service marks, and logos</answer>"):
        assert token in allowed_after(extractive, source, generated), (
            f"{tokenizer.decode([token])!r} after {generated!r}"
        )
        generated += tokenizer.decode([token])
    spaces = set(spell(tokenizer, "\n\n")) | set(spell(tokenizer, " "))
    assert not spaces & set(
        allowed_after(extractive, source, "<answer>service ")
    )  # no run of whitespace tokens


def test_a_paraphrase_is_ruled_out(tokenizer, extractive):
    allowed = allowed_after(extractive, SOURCE, "<answer>This Agreement shall be governed by the laws of")
    assert set(spell(tokenizer, " the")) <= set(allowed)
    assert not set(spell(tokenizer, " Nevada")) & set(allowed)  # "the State of" comes first in the source
    assert allowed_after(extractive, SOURCE, "<answer>This Agreement is governed") == [tokenizer.eos_token_id]


def test_the_engine_masks_only_rows_inside_an_answer(tiny_model, tokenizer):
    engine = TransformersEngine(tiny_model, tokenizer, extractive_answers=True)
    prompt = spell(tokenizer, SOURCE)
    answering = _Turn(prompt, ids=spell(tokenizer, "<answer>Payment is"))
    searching = _Turn(prompt, ids=spell(tokenizer, "Let me search"))
    logits = torch.randn(2, len(tokenizer))
    before = logits.clone()
    engine._constrain(logits, [answering, searching])
    allowed = allowed_after(engine.extractive, SOURCE, "<answer>Payment is")
    assert torch.isfinite(logits[0]).nonzero()[:, 0].tolist() == allowed
    assert torch.equal(logits[0, allowed], before[0, allowed])
    assert torch.equal(logits[1], before[1])
    assert collapse(tokenizer.decode([int(logits[0].argmax())])) in (" ", " due", " d", " du", "<|im_end|>")


def test_an_answer_cannot_open_another_answer(tokenizer, extractive):
    source = "Reply inside <answer>...</answer>. " + SOURCE  # the system prompt spells the opening tag
    answer = "Reply inside <answer"
    allowed = {tokenizer.decode([token]) for token in allowed_after(extractive, source, "<answer>" + answer)}
    assert not [text for text in allowed if "<answer>" in collapse(answer + text)]
    assert allowed_after(extractive, source, "<answer>Reply inside")  # the rest of the source is still open
