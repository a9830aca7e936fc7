"""tau2 episodes through the one episode loop, recorded with what the tau2 pipelines and metrics read.

:func:`run_tasks` runs tasks with one engine (the policy, batched over the tasks through
:func:`agenttune.agents.run_episodes`) or with an engine per task (a scripted agent:
:func:`agenttune.benchmarks.tau2.oracle.script_engine`), each task in its own harness from ``make_harness`` (a
:class:`~agenttune.benchmarks.tau2.harness.Tau2Harness`, or a wrapper of one), with the ReAct strategy whose turn
budget is the harness's step budget. The harness ends and scores an episode: the loop's episode REWARD (name
``harness``) carries tau2's harness info (``termination_reason``, ``reward_info``, ``steps``, ``user_tool_calls``).
An episode the loop ended first (turns spent on unparsable calls are no tau2 steps) is scored by closing its
harness with ``max_steps``, and that REWARD is appended. ``metadata`` gains ``domain``, ``termination_reason``,
``reward``, ``steps``, ``max_steps``, ``user_tool_calls``, ``agent`` and ``user_fault``: with an LLM user, the
reason code of :func:`~agenttune.benchmarks.tau2.user_faults.user_fault` when the failure is the user's, else ``""``
(always ``""`` with the scripted user).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from agenttune.agents import ReAct, run_episodes
from agenttune.benchmarks.tau2.user_faults import user_fault
from agenttune.benchmarks.tau2.users import LLMUser
from agenttune.engines.base import Engine
from agenttune.events.schema import Event, EventKind, EventLog, RewardPayload, replace
from agenttune.progress import progress as progress_bar

if TYPE_CHECKING:
    from tau2.data_model.tasks import Task

EngineFor = Callable[["Task"], Engine]  # task -> the engine that plays it (scripted agents)


def run_tasks(
    engine: Engine | EngineFor,
    make_harness: Callable[[], Any],
    tasks: Iterable[Task],
    domain: str,
    agent_name: str = "",
    progress: bool = False,
    writer: Callable[[EventLog], None] | None = None,
) -> list[EventLog]:
    """One recorded episode per task, in task order (see the module docstring); ``writer`` receives each recorded
    log the moment its episode ends (an :class:`~agenttune.events.io.EventLogWriter`'s ``write``)."""
    task_list = list(tasks)
    harnesses = [make_harness() for _ in task_list]
    if not harnesses:
        return []
    strategy = ReAct(max_turns=harnesses[0].max_steps)
    recorded = lambda log, harness: record(log, harness, domain, agent_name)  # noqa: E731
    with progress_bar(total=len(task_list), desc=f"tau2 {domain}", unit="episode", enabled=progress) as bar:

        def write(log: EventLog) -> None:
            if writer is not None:
                writer(log)
            bar.update()

        options = {"source": f"tau2_{domain}", "record": recorded, "writer": write}
        if isinstance(engine, Engine):
            return run_episodes(engine, harnesses, strategy, task_list, **options)
        pairs = zip(task_list, harnesses, strict=True)
        return [run_episodes(engine(t), [h], strategy, [t], **options)[0] for t, h in pairs]


def record(log: EventLog, harness: Any, domain: str, agent_name: str) -> EventLog:
    """``log`` with its tau2 metadata, scored by closing ``harness`` when the loop ended it first."""
    reward = next(
        (e for e in reversed(log.events) if e.kind == EventKind.REWARD and e.payload.scope == "episode"), None
    )
    events = log.events
    if reward is None:
        result = harness.close("max_steps")
        payload = RewardPayload(scope="episode", name="harness", value=result.reward, info=result.info)
        reward = Event(payload=payload, actor="env", step=events[-1].step if events else 0)
        events = [*events, reward]
    info = reward.payload.info
    metadata = {
        **log.metadata,
        "domain": domain,
        "termination_reason": info["termination_reason"],
        "reward": float(reward.payload.value),
        "steps": info["steps"],
        "max_steps": harness.max_steps,
        "user_tool_calls": info["user_tool_calls"],
        "agent": agent_name,
        "user_fault": "",
    }
    log = replace(log, events=events, metadata=metadata)
    if isinstance(harness.user, LLMUser):
        log.metadata["user_fault"] = user_fault(log, harness.task)
    return log
