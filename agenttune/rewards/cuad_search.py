"""Rewards of the CUAD contract-search task, in TRL's reward-function style.

Each reward takes ``completions`` (strings, or conversations whose last message holds the final reply)
plus dataset / rollout columns passed as keyword lists, one value per completion, and returns one float per
completion. Columns read:

- ``answer`` (str) and optionally ``answer_aliases`` (list[str]): the gold answer and accepted variants;
- ``gold_spans`` (list of ``[doc_id, start, end]``): the evidence's character ranges;
- ``shown_spans`` (list of ``[doc_id, start, end]``): the passages the episode's search results showed (with
  ``harness.snippet_chars`` set, the snippets the agent saw, not the whole chunks);
- ``num_searches`` (int): how many tool calls the episode made (every tool counts);
- ``hops`` (int, optional, default 1): the minimum number of searches the question needs.

A missing column raises ``KeyError`` naming it: a reward never quietly scores zero.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agenttune.rag import spans
from agenttune.rewards.answer import exact_match, extract_answer, token_f1

Completion = str | list[dict[str, Any]]


def completion_text(completion: Completion) -> str:
    """The text of a completion: the string itself, or the content of a conversation's last message."""
    if isinstance(completion, str):
        return completion
    return str(completion[-1].get("content") or "") if completion else ""


def _column(kwargs: dict[str, Any], name: str, n: int) -> list:
    if name not in kwargs or kwargs[name] is None:
        raise KeyError(f"this reward needs the {name!r} column (got columns: {sorted(kwargs)})")
    values = list(kwargs[name])
    if len(values) != n:
        raise ValueError(f"column {name!r} has {len(values)} values for {n} completions")
    return values


def _gold_answers(answer: str, aliases: Sequence[str] | None) -> list[str]:
    return [answer, *(aliases or [])]


def coverage(gold_chunk_ids: Sequence[str], retrieved_chunk_ids: Sequence[str]) -> float:
    """Share of gold chunks among the retrieved ones (1.0 when there is no gold evidence to find).

    >>> coverage(["a", "b"], ["b", "x", "b"]), coverage(["a"], [])
    (0.5, 0.0)
    """
    gold = set(gold_chunk_ids)
    return len(gold & set(retrieved_chunk_ids)) / len(gold) if gold else 1.0


def frugality(num_searches: int, minimum: int = 1) -> float:
    """1.0 up to ``minimum`` searches, then ``minimum / num_searches``.

    >>> frugality(1), frugality(4), frugality(3, minimum=3), frugality(0)
    (1.0, 0.25, 1.0, 1.0)
    """
    minimum = max(1, minimum)
    return 1.0 if num_searches <= minimum else minimum / num_searches


def answer_exact_match(completions: list[Completion], **kwargs: Any) -> list[float]:
    """1.0 when the ``<answer>`` block equals the gold ``answer`` (or an ``answer_aliases`` entry) after
    SQuAD normalisation.

    >>> answer_exact_match(["<answer>Nevada</answer>", "Nevada"], answer=["Nevada", "Nevada"])
    [1.0, 0.0]
    """
    answers = _column(kwargs, "answer", len(completions))
    aliases = kwargs.get("answer_aliases") or [None] * len(completions)
    return [
        exact_match(extract_answer(completion_text(c)), _gold_answers(a, al))
        for c, a, al in zip(completions, answers, aliases, strict=True)
    ]


def answer_f1(completions: list[Completion], **kwargs: Any) -> list[float]:
    """Token F1 of the ``<answer>`` block against the best of ``answer`` and ``answer_aliases``.

    >>> answer_f1(["<answer>the laws of Nevada</answer>"], answer=["Nevada"])
    [0.5]
    """
    answers = _column(kwargs, "answer", len(completions))
    aliases = kwargs.get("answer_aliases") or [None] * len(completions)
    return [
        token_f1(extract_answer(completion_text(c)), _gold_answers(a, al))
        for c, a, al in zip(completions, answers, aliases, strict=True)
    ]


def evidence_coverage(completions: list[Completion], **kwargs: Any) -> list[float]:
    """Share of the characters of ``gold_spans`` that the passages the episode saw (``shown_spans``) cover.

    >>> evidence_coverage(["", ""], gold_spans=[[["d", 0, 10]], [["d", 0, 10]]],
    ...                   shown_spans=[[["d", 5, 40]], [["e", 0, 10]]])
    [0.5, 0.0]
    """
    gold = _column(kwargs, "gold_spans", len(completions))
    shown = _column(kwargs, "shown_spans", len(completions))
    return [spans.recall(g, s) for g, s in zip(gold, shown, strict=True)]


def search_frugality(completions: list[Completion], **kwargs: Any) -> list[float]:
    """1.0 for at most ``hops`` tool calls (default 1), then ``hops / num_searches``. Zero calls score 1.0
    here; the coverage reward already gives them nothing.

    >>> search_frugality(["", ""], num_searches=[1, 4])
    [1.0, 0.25]
    """
    searches = _column(kwargs, "num_searches", len(completions))
    hops = kwargs.get("hops") or [1] * len(completions)
    return [frugality(int(n), int(h)) for n, h in zip(searches, hops, strict=True)]
