"""Extractive answers: constrained decoding that makes an ``<answer>`` a verbatim span of what the model was shown.

A small model asked to quote a clause paraphrases it ("non-exclusive, non-transferable" for the contract's
"non-exclusive, limited, non-transferable"), so exact match stays 0 even when it found and chose the right clause.
With ``model.extractive_answers`` the transformers engine masks, at every step inside ``<answer>``, the tokens
that would make the answer text anything but a substring of the turn's prompt (its system prompt, the question
and the tool results it was shown), or the closing ``</answer>`` after such a substring; never a new
``<answer>``. Whitespace is matched as exact match scores it: a run of spaces and line breaks counts as one space,
so the model may write "service marks" where a page break split the words in the contract. Where the answer
starts and where it stops stays the model's choice; outside an answer block nothing is constrained.

:class:`ExtractiveAnswers` works on text, not on token ids, so a span may be copied in any tokenization: for each
row it finds where the answer so far occurs in the prompt and allows the vocabulary's tokens that spell a
continuation of one of those occurrences.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

OPEN, CLOSE = "<answer>", "</answer>"
WHITESPACE = re.compile(r"\s+")


def collapse(text: str) -> str:
    """Every run of whitespace as one space: a copy may break lines where the source does not."""
    return WHITESPACE.sub(" ", text)


def open_answer(generated: str) -> str | None:
    """The text of the ``<answer>`` block ``generated`` has opened and not closed; None when there is none (no
    constraint)."""
    start = generated.rfind(OPEN)
    if start < 0 or CLOSE in generated[start:]:
        return None
    return generated[start + len(OPEN) :]


class ExtractiveAnswers:
    """The tokens allowed next in a turn (:meth:`allowed`), from the tokenizer's vocabulary spelled as text (with
    whitespace collapsed)."""

    def __init__(self, tokenizer: Any, always: list[int]) -> None:
        special = set(tokenizer.all_special_ids)
        spelled: dict[str, list[int]] = defaultdict(list)
        for token_id in range(len(tokenizer)):
            if token_id not in special:
                text = collapse(tokenizer.decode([token_id]))
                if text:
                    spelled[text].append(token_id)
        self.spelled = dict(spelled)
        self.longest = max(map(len, self.spelled))
        self.with_tag = [text for text in self.spelled if "<" in text]  # those that may open the closing tag
        self.always = list(always)  # the stop tokens: a turn may always end

    def allowed(self, source: str, answer: str) -> list[int]:
        """The token ids that may follow ``answer``, the text of an open answer block (:func:`open_answer`), in a
        turn whose prompt reads ``source`` with its whitespace collapsed (:func:`collapse`)."""
        answer = collapse(answer)
        # an answer may not spell the opening tag: copied from the system prompt, it would open a new, empty answer
        # block and restart the copy (the student looped "<answer>\n<answer>\n..." until its budget ran out)
        texts = self._closing(source, answer) | self._copying(source, answer)
        texts = {text for text in texts if OPEN not in answer + text}
        return sorted({token_id for text in texts for token_id in self.spelled[text]} | set(self.always))

    def _copying(self, source: str, answer: str) -> set[str]:
        """Tokens that extend ``answer`` to a longer substring of ``source``."""
        if not answer:
            return {text for text in self.spelled if text in source}
        texts, at = set(), source.find(answer)
        while at >= 0:
            rest = source[at + len(answer) : at + len(answer) + self.longest]
            texts.update(rest[:length] for length in range(1, len(rest) + 1))
            at = source.find(answer, at + 1)
        # a token's leading whitespace merges with the answer's trailing space (a whitespace token alone would add
        # nothing, so it is not allowed: no runs of spaces)
        if answer.endswith(" "):
            texts |= {" " + text for text in texts}
        return texts & self.spelled.keys()

    def _closing(self, source: str, answer: str) -> set[str]:
        """Tokens that spell ``</answer>`` on (or finish it) after a substring of ``source``: tokens that go on
        with a tag ``answer`` has begun, and tokens that copy a few more characters, then begin it (".</")."""
        texts = set()
        for cut in range(max(0, len(answer) - len(CLOSE) + 1), len(answer)):
            quoted, tag = answer[:cut], answer[cut:]
            if CLOSE.startswith(tag) and quoted in source:
                texts.update(text for text in self.spelled if _spells_close(tag + text))
        for text in self.with_tag:
            for at in (index for index, char in enumerate(text) if char == "<"):
                if _spells_close(text[at:]) and collapse(answer + text[:at]) in source:
                    texts.add(text)
        return texts


def _spells_close(text: str) -> bool:
    """Whether ``text`` is a non-empty start of ``</answer>`` or ``</answer>`` followed by anything."""
    return bool(text) and (CLOSE.startswith(text) or text.startswith(CLOSE))
