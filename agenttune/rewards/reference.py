"""Similarity to a recorded reference turn: a dense reward for rewriting recorded trajectories."""

from __future__ import annotations

from difflib import SequenceMatcher
from typing import Any

from agenttune.rewards.cuad_search import completion_text


def reference_similarity(completions: list, reference: list[str], **kwargs: Any) -> list[float]:
    """Character-level similarity (difflib ratio) between each completion and the recorded turn it should reproduce.

    Dense on purpose: even an untrained policy's completions differ in it, so a group has a learning signal.

    >>> reference_similarity(["search the lease", "xyz"], reference=["search the lease term"] * 2)
    [0.8648648648648649, 0.0]
    """
    return [
        SequenceMatcher(None, completion_text(c), ref).ratio()
        for c, ref in zip(completions, reference, strict=True)
    ]
