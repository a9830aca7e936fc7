"""The token track: append-only growth, the closing of cut-off turns, and refusing templates that rewrite history."""

from __future__ import annotations

import copy

import pytest

from agenttune.agents.tokens import TokenTrack, TokenTrackError
from agenttune.engines.base import Generation
from agenttune.engines.templates import encode

USER = [{"role": "user", "content": "Say hi."}]
REPLY = {"role": "assistant", "content": "hi"}
NEXT = {"role": "user", "content": "Again."}


def generation(tokenizer, text, stopped=True):
    ids = encode(tokenizer, text) + ([tokenizer.convert_tokens_to_ids("<|im_end|>")] if stopped else [])
    return Generation.from_text(text, completion_ids=ids, finish_reason="stop" if stopped else "length")


def test_cut_off_turn_is_closed_by_the_template_tokens(tokenizer):
    track = TokenTrack(tokenizer, None)
    track.prompt(USER)
    track.append(generation(tokenizer, "hi", stopped=False), REPLY)
    before = len(track.ids)
    ids = track.prompt([*USER, REPLY, NEXT])
    assert (
        tokenizer.decode(ids[before:])
        == "<|im_end|>\n<|im_start|>user\nAgain.<|im_end|>\n<|im_start|>assistant\n"
    )


def test_conversation_must_extend_what_was_sent(tokenizer):
    track = TokenTrack(tokenizer, None)
    track.prompt(USER)
    track.append(generation(tokenizer, "hi"), REPLY)
    with pytest.raises(TokenTrackError, match="extend the previous one"):
        track.prompt([*USER, NEXT])


def test_template_rewriting_earlier_turns_is_refused(tokenizer):
    rewriting = copy.deepcopy(tokenizer)
    rewriting.chat_template = (
        "{% for m in messages %}<|im_start|>{{ m.role }}\n"
        "{% if m.role == 'assistant' and not loop.last %}(earlier reply){% else %}{{ m.content }}{% endif %}"
        "<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
    )
    track = TokenTrack(rewriting, None)
    track.prompt(USER)
    track.append(generation(rewriting, "hi"), REPLY)
    with pytest.raises(TokenTrackError, match="renders earlier turns differently"):
        track.prompt([*USER, REPLY, NEXT])
