"""verl reward module: ``compute_score`` scores with the project's own answer metrics.

Use it as verl's ``custom_reward_function.path`` (function name ``compute_score``) with rows written by
:mod:`agenttune.events.verl` (the export is a projection of the record; the scoring lives here, with the
rewards). The answer is the last ``<answer>...</answer>`` block of the solution
(:func:`agenttune.rewards.answer.extract_answer`), scored against every gold answer by the metric named in
``extra_info["metric"]``: ``exact_match`` (the default) or ``token_f1``.
"""

from __future__ import annotations

from typing import Any

from agenttune.rewards.answer import exact_match, extract_answer, token_f1

METRICS = {"exact_match": exact_match, "token_f1": token_f1}


def compute_score(
    data_source: str, solution_str: str, ground_truth: Any, extra_info: dict | None = None
) -> float:
    """Score one solution in [0, 1]; ``ground_truth`` is a string or a list of acceptable answers."""
    metric = (extra_info or {}).get("metric", "exact_match")
    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r} for {data_source!r}; use one of {sorted(METRICS)}")
    golds = [ground_truth] if isinstance(ground_truth, str) else [str(answer) for answer in ground_truth]
    return METRICS[metric](extract_answer(solution_str), golds)
