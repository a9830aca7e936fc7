"""verl reward module: ``compute_score`` scores with the project's own answer metrics.

Use it as verl's ``custom_reward_function.path`` (function name ``compute_score``) with rows written by
:mod:`agenttune.events.verl` (the export is a projection of the record; the scoring lives here, with the
rewards). The answer is the last ``<answer>...</answer>`` block of the solution
(:func:`agenttune.rewards.answer.extract_answer`), scored against every gold answer by the metric named in
``extra_info["metric"]``: ``exact_match`` (the default) or ``token_f1``. ``communicate`` scores a tau2 task the way
tau2's own ``CommunicateEvaluator`` does: 1.0 when the whole solution (the agent's messages) states every string of
the task's ``communicate_info`` (the ground truth), else 0.0.
"""

from __future__ import annotations

from typing import Any

from agenttune.rewards.answer import exact_match, extract_answer, token_f1

ANSWER_METRICS = {"exact_match": exact_match, "token_f1": token_f1}
METRICS = (*ANSWER_METRICS, "communicate")


def communicated(solution: str, required: list[str]) -> float:
    """1.0 when tau2's communicate evaluator finds every ``required`` string in ``solution``, an agent message."""
    from tau2.data_model.message import AssistantMessage
    from tau2.evaluator.evaluator_communicate import CommunicateEvaluator

    message = AssistantMessage(role="assistant", content=solution)
    checks = CommunicateEvaluator.evaluate_communicate_info([message], required)
    return float(all(check.met for check in checks))


def compute_score(
    data_source: str, solution_str: str, ground_truth: Any, extra_info: dict | None = None
) -> float:
    """Score one solution in [0, 1]; ``ground_truth`` is a string or a list of acceptable answers."""
    metric = (extra_info or {}).get("metric", "exact_match")
    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r} for {data_source!r}; use one of {sorted(METRICS)}")
    golds = [ground_truth] if isinstance(ground_truth, str) else [str(answer) for answer in ground_truth]
    if metric == "communicate":
        return communicated(solution_str, golds)
    return ANSWER_METRICS[metric](extract_answer(solution_str), golds)
