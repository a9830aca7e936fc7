"""RL rows from full-tier logs: prompt and completion token ids, a tool mask, logprobs and rewards.

The completion starts at the first model-generated token and ends after the last one; everything before it is
the prompt. Inside the completion, ``tool_mask`` is 1 on model-generated tokens (spans that carry logprobs,
see :mod:`agenttune.events.schema`) and 0 on what the environment or template inserted (tool results,
observations, role headers): the layout of TRL's multi-turn ``tool_mask``. ``old_logprobs`` holds the
sampling logprob of each generated token and 0.0 elsewhere. ``reward`` is the episode reward named
``total`` (or the only episode reward), ``reward_components`` all episode rewards by name.
"""

from __future__ import annotations

from typing import Any

from agenttune.events.schema import EventLog


def rl_row(log: EventLog, *, branch: str = "main") -> dict[str, Any]:
    """One RL row from ``branch``'s path of a full-tier log."""
    log.require_full("rl_row")
    generated = sorted(
        (event.span, event.logprobs)
        for index in log.lineage(branch)
        if (event := log.events[index]).logprobs is not None
    )
    if not generated:
        raise ValueError(f"log {log.id!r} has no model-generated tokens on branch {branch!r}")
    start, end = generated[0][0][0], generated[-1][0][1]
    tool_mask = [0] * (end - start)
    old_logprobs = [0.0] * (end - start)
    for (lo, hi), logprobs in generated:
        tool_mask[lo - start : hi - start] = [1] * (hi - lo)
        old_logprobs[lo - start : hi - start] = logprobs
    components = log.rewards("episode", branch)
    return {
        "log_id": log.id,
        "task_id": log.task_id,
        "prompt_ids": log.token_ids[:start],
        "completion_ids": log.token_ids[start:end],
        "tool_mask": tool_mask,
        "old_logprobs": old_logprobs,
        "reward": _episode_total(log, components),
        "reward_components": components,
    }


def _episode_total(log: EventLog, components: dict[str, float]) -> float:
    if "total" in components:
        return components["total"]
    if len(components) == 1:
        return next(iter(components.values()))
    raise ValueError(
        f"log {log.id!r} needs an episode reward named 'total' (or exactly one episode reward); "
        f"it has {sorted(components)}"
    )
