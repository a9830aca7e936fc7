"""DPO rows: a shared conversation prefix and the two assistant turns that diverge from it.

Two paths of the same task (two logs, or two branches of one log) are rendered to chat messages
(:mod:`.messages`); the prompt is their longest common message prefix, and chosen / rejected are each path's
next message, which must be an assistant message. Cutting at the divergence keeps tool results and later turns
out of the preference loss. Rows are in TRL's conversational preference format:
``{"prompt": [messages], "chosen": [assistant message], "rejected": [assistant message]}`` plus ``tools``
when the logs offered any, and the ids of both sides.
"""

from __future__ import annotations

from typing import Any

from agenttune.events.projections.messages import chat_messages
from agenttune.events.schema import EventLog


def preference_row(
    chosen: list[dict[str, Any]], rejected: list[dict[str, Any]], *, what: str = "paths"
) -> dict[str, Any]:
    """A DPO row from two message lists that share a prefix and then differ at an assistant message."""
    shared = 0
    for left, right in zip(chosen, rejected, strict=False):
        if left != right:
            break
        shared += 1
    if shared == len(chosen) or shared == len(rejected):
        raise ValueError(f"{what} do not diverge: one is a prefix of the other")
    chosen_turn, rejected_turn = chosen[shared], rejected[shared]
    if chosen_turn["role"] != "assistant" or rejected_turn["role"] != "assistant":
        raise ValueError(
            f"{what} diverge at message {shared} with roles {chosen_turn['role']!r} / {rejected_turn['role']!r}; "
            "a preference pair needs both sides to diverge at an assistant turn"
        )
    return {"prompt": chosen[:shared], "chosen": [chosen_turn], "rejected": [rejected_turn]}


def dpo_row(chosen: EventLog, rejected: EventLog, *, branch: str = "main") -> dict[str, Any]:
    """A DPO row from two logs of the same task; ``chosen`` is the preferred one."""
    if chosen.task_id != rejected.task_id:
        raise ValueError(f"logs {chosen.id!r} and {rejected.id!r} are of different tasks")
    row = preference_row(
        chat_messages(chosen, branch),
        chat_messages(rejected, branch),
        what=f"logs {chosen.id!r}/{rejected.id!r}",
    )
    return _with_context(row, chosen, chosen.id, rejected.id)


def dpo_row_from_branches(log: EventLog, chosen: str, rejected: str) -> dict[str, Any]:
    """A DPO row from two branches of one log (e.g. an accepted and a rejected sibling)."""
    row = preference_row(
        chat_messages(log, chosen), chat_messages(log, rejected), what=f"branches {chosen!r}/{rejected!r}"
    )
    return _with_context(row, log, f"{log.id}#{chosen}", f"{log.id}#{rejected}")


def dpo_row_by_reward(a: EventLog, b: EventLog, *, reward: str = "total") -> dict[str, Any]:
    """A DPO row preferring the log with the higher episode reward ``reward``; ties are an error."""
    score_a, score_b = _episode_reward(a, reward), _episode_reward(b, reward)
    if score_a == score_b:
        raise ValueError(f"logs {a.id!r} and {b.id!r} tie on {reward!r} ({score_a}); no preference")
    return dpo_row(a, b) if score_a > score_b else dpo_row(b, a)


def _episode_reward(log: EventLog, name: str) -> float:
    rewards = log.rewards("episode")
    if name not in rewards:
        raise ValueError(f"log {log.id!r} has no episode reward {name!r}; it has {sorted(rewards)}")
    return rewards[name]


def _with_context(row: dict[str, Any], log: EventLog, chosen_id: str, rejected_id: str) -> dict[str, Any]:
    if log.tools:
        row["tools"] = log.tools
    row.update(task_id=log.task_id, chosen_id=chosen_id, rejected_id=rejected_id)
    return row
