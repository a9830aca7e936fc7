"""Answer extraction and SQuAD-style answer scoring: normalisation, exact match and token F1.

An agent ends its reply with ``<answer>...</answer>``; :func:`extract_answer` takes the last such block.
Scores are in [0, 1] and an empty prediction always scores 0.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Iterable

ANSWER_PATTERN = re.compile(r"<answer>(.*?)</answer>", re.DOTALL | re.IGNORECASE)
_PUNCTUATION = set(string.punctuation) | set("‘’“”–—")


def extract_answer(text: str) -> str:
    """The content of the last ``<answer>...</answer>`` block, stripped; ``""`` when there is none.

    >>> extract_answer("I searched. <answer>first</answer> then <answer> Nevada </answer>")
    'Nevada'
    >>> extract_answer("no tags here")
    ''
    """
    found = ANSWER_PATTERN.findall(text or "")
    return found[-1].strip() if found else ""


def normalize_answer(text: str) -> str:
    """Lower-case, drop punctuation and the articles a/an/the, collapse whitespace (SQuAD's rule).

    >>> normalize_answer("The  State of NEW-YORK.")
    'state of newyork'
    """
    text = "".join(ch for ch in (text or "").lower() if ch not in _PUNCTUATION)
    text = re.sub(r"\b(a|an|the)\b", " ", text)
    return " ".join(text.split())


def _golds(gold: str | Iterable[str]) -> list[str]:
    return [gold] if isinstance(gold, str) else [g for g in gold if g]


def exact_match(prediction: str, gold: str | Iterable[str]) -> float:
    """1.0 when the normalised prediction equals a normalised gold answer (any of several), else 0.0.

    >>> exact_match("the Nevada", "Nevada"), exact_match("", ""), exact_match("Utah", ["Nevada", "utah"])
    (1.0, 0.0, 1.0)
    """
    pred = normalize_answer(prediction)
    return float(bool(pred) and any(pred == normalize_answer(g) for g in _golds(gold)))


def token_f1(prediction: str, gold: str | Iterable[str]) -> float:
    """Harmonic mean of token precision and recall against the best-matching gold answer.

    >>> round(token_f1("laws of the State of Nevada", "Nevada"), 2), token_f1("", "Nevada")
    (0.33, 0.0)
    """
    pred_tokens = normalize_answer(prediction).split()
    best = 0.0
    for g in _golds(gold):
        gold_tokens = normalize_answer(g).split()
        common = sum((Counter(pred_tokens) & Counter(gold_tokens)).values())
        if pred_tokens and gold_tokens and common:
            precision, recall = common / len(pred_tokens), common / len(gold_tokens)
            best = max(best, 2 * precision * recall / (precision + recall))
    return best
