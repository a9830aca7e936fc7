"""Summary metrics of tau2 EventLogs (as recorded by ``runner.run_tasks``) and run-to-run comparison."""

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


def summarize(logs: Sequence[EventLog]) -> dict[str, float]:
    """Average reward, rate of MAX_STEPS endings, low-reward rate (reward <= 0.5), DB pass rate (among
    episodes with a DB check), and action all-OK rate (among episodes with gold actions to check)."""
    if not logs:
        raise ValueError("no EventLogs to summarize")
    rewards = [episode_reward(log) for log in logs]
    infos = [reward_info(log) for log in logs]
    db_checks = [info["db_check"]["db_match"] for info in infos if info.get("db_check")]
    action_checks = [
        all(check["action_match"] for check in info["action_checks"])
        for info in infos
        if info.get("action_checks")
    ]
    return {
        "episodes": float(len(logs)),
        "avg_reward": sum(rewards) / len(rewards),
        "max_steps_rate": sum(log.metadata.get("termination_reason") == "max_steps" for log in logs)
        / len(logs),
        "low_reward_rate": sum(reward <= LOW_REWARD for reward in rewards) / len(rewards),
        "db_pass_rate": sum(db_checks) / len(db_checks) if db_checks else float("nan"),
        "action_all_ok_rate": sum(action_checks) / len(action_checks) if action_checks else float("nan"),
    }


def compare(before: Sequence[EventLog], after: Sequence[EventLog]) -> dict[str, int]:
    """Tasks whose reward went up, down or stayed, between two runs (matched by domain and task id; a task
    run several times counts with its mean reward)."""

    def by_task(logs: Sequence[EventLog]) -> dict[tuple[str, str], float]:
        groups: dict[tuple[str, str], list[float]] = {}
        for log in logs:
            groups.setdefault((log.metadata.get("domain", ""), log.task_id), []).append(episode_reward(log))
        return {key: sum(values) / len(values) for key, values in groups.items()}

    old, new = by_task(before), by_task(after)
    shared = old.keys() & new.keys()
    return {
        "improved": sum(new[key] > old[key] for key in shared),
        "regressed": sum(new[key] < old[key] for key in shared),
        "unchanged": sum(new[key] == old[key] for key in shared),
        "unmatched": len(old.keys() ^ new.keys()),
    }


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
