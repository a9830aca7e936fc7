"""Summary metrics of tau2 EventLogs (as recorded by ``runner.run_tasks``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agenttune.events.schema import Event, EventKind, EventLog

LOW_REWARD = 0.5  # a reward at or below this counts as a failure


def episode_reward(log: EventLog) -> float:
    """The reward tau2's harness gave the episode."""
    return float(log.metadata["reward"])


def reward_info(log: EventLog) -> dict[str, Any]:
    """tau2's reward info (``reward``, ``db_check``, ``action_checks``, ...) from the episode's REWARD event."""
    for event in reversed(log.events):
        if event.kind == "reward" and event.payload.scope == "episode":
            return event.payload.info.get("reward_info", {})
    return {}


def episode_score(log: EventLog) -> dict[str, float]:
    """One episode's reward and its 0/1 indicators: MAX_STEPS ending, low reward (<= 0.5), DB match (only with a DB
    check) and every gold action matched (only with gold actions to check)."""
    reward = episode_reward(log)
    info = reward_info(log)
    score = {
        "avg_reward": reward,
        "max_steps_rate": float(log.metadata.get("termination_reason") == "max_steps"),
        "low_reward_rate": float(reward <= LOW_REWARD),
    }
    if info.get("db_check"):
        score["db_pass_rate"] = float(info["db_check"]["db_match"])
    if info.get("action_checks"):
        score["action_all_ok_rate"] = float(all(check["action_match"] for check in info["action_checks"]))
    return score


def summarize(logs: Sequence[EventLog]) -> dict[str, float]:
    """The mean of each :func:`episode_score` over the episodes that have it (NaN when none does): average reward,
    rate of MAX_STEPS endings, low-reward rate, DB pass rate and action all-OK rate."""
    if not logs:
        raise ValueError("no EventLogs to summarize")
    scores = [episode_score(log) for log in logs]
    names = ("avg_reward", "max_steps_rate", "low_reward_rate", "db_pass_rate", "action_all_ok_rate")
    means = {}
    for name in names:
        values = [score[name] for score in scores if name in score]
        means[name] = sum(values) / len(values) if values else float("nan")
    return {"episodes": float(len(logs)), **means}


def gold_action_matched(action: Event, log: EventLog) -> bool:
    """Whether tau2's action checks of ``log`` mark this tool call as a matched gold action (the name and every
    compared argument agree): the domain fact self-evolution uses to keep correct actions out of rejected sides."""
    if action.kind != EventKind.TOOL_CALL:
        return False
    for check in reward_info(log).get("action_checks") or []:
        gold = check.get("action", {})
        if not check.get("action_match") or gold.get("name") != action.payload.name:
            continue
        keys = gold.get("compare_args") or list(gold.get("arguments", {}))
        if all(action.payload.arguments.get(k) == gold.get("arguments", {}).get(k) for k in keys):
            return True
    return False
