"""Run tau2 tasks with an agent and record each episode as a light-tier EventLog.

An agent is any object with ``act(events: list[Event]) -> Event`` (see ``oracle.Agent``); ``make_agent``
builds one per task (the oracle needs the task; an LLM agent can ignore it). Each log holds the opening
events, every action with its observations (the action's ``step`` is its index in the episode), a
TURN_COMPLETE event with the termination reason, and a REWARD event (scope ``episode``, name ``total``)
whose ``info`` is tau2's full reward info. ``metadata`` holds ``domain``, ``task_id``,
``termination_reason``, ``reward``, ``steps``, ``max_steps``, ``user_tool_calls`` and ``agent``.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from tqdm import tqdm

from agenttune.benchmarks.tau2.harness import Tau2Harness
from agenttune.benchmarks.tau2.oracle import Agent
from agenttune.events.schema import Event, EventLog, RewardPayload, TurnCompletePayload, replace
from agenttune.harness.protocol import Harness

if TYPE_CHECKING:
    from tau2.data_model.tasks import Task


def run_episode(harness: Harness, task: Task, agent: Agent, domain: str, agent_name: str = "") -> EventLog:
    """One episode of ``task``; the harness must end it (the tau2 harness always does, by its budget)."""
    events = harness.reset(task)
    step = 0
    while True:
        action = replace(agent.act(list(events)), step=step, actor="agent")
        result = harness.step(action)
        events += [action, *result.observations]
        step += 1
        if result.done:
            break
    termination = result.info.get("termination_reason", "unknown")
    reward_info = result.info.get("reward_info", {})
    events += [
        Event(payload=TurnCompletePayload(reason=termination), actor="env", step=step - 1),
        Event(
            payload=RewardPayload(
                scope="episode", name="total", value=float(result.reward or 0.0), info=reward_info
            ),
            actor="judge",
            step=step - 1,
        ),
    ]
    return EventLog(
        id=f"tau2_{domain}_{task.id}_{uuid.uuid4().hex[:8]}",
        source=f"tau2_{domain}",
        task_id=str(task.id),
        tools=harness.tool_schemas(),
        events=events,
        metadata={
            "domain": domain,
            "task_id": str(task.id),
            "termination_reason": termination,
            "reward": float(result.reward or 0.0),
            "steps": step,
            "max_steps": getattr(harness, "max_steps", None),
            "user_tool_calls": result.info.get("user_tool_calls", []),
            "agent": agent_name,
        },
    )


def run_tasks(
    harness: Tau2Harness | Harness,
    tasks: Iterable[Task],
    make_agent: Callable[[Task], Agent],
    domain: str | None = None,
    agent_name: str = "",
    progress: bool = False,
) -> list[EventLog]:
    """Run every task once with a fresh agent from ``make_agent(task)``; returns one EventLog per task.

    ``domain`` defaults to the harness's own (wrapped harnesses expose it as ``.domain`` too).
    """
    domain = domain or getattr(harness, "domain", "")
    task_list = list(tasks)
    iterator: Iterable[Any] = tqdm(task_list, desc=f"tau2 {domain}") if progress else task_list
    return [run_episode(harness, task, make_agent(task), domain, agent_name) for task in iterator]
