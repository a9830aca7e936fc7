"""A rollout/judge graph: policies (rollout nodes, an optional router picking one per batch) and a panel of rubric
judges, compiled into a ``langgraph`` StateGraph and used as GRPO's rollout function.

One batch runs ``START -> router -> <policy> -> judge_1 -> ... -> judge_n -> END``:

- the router (default: the first policy; :func:`round_robin` alternates by training step) names the policy;
- the policy node samples one episode per prompt through its :class:`~agenttune.training.rollouts.EpisodeRollouts`
  (its own engine and sampling over the trainer's live weights, or a scripted fake); every event of its logs gets
  ``metadata.agent = <policy name>``, and the log ``metadata.agent`` too;
- each judge node scores every completion once with :class:`~agenttune.rewards.judge.LLMJudge` (the project's LLM
  judge and its guards: clamping, rubric rotation, unparsable replies left unscored) and appends a REWARD event
  ``judge/<name>`` (actor ``judge``, ``metadata.agent = <judge name>``);
- the panel's ``total`` (the mean of the judges' scores that parsed, 0 when none did) is appended last, so GRPO's
  reward function (:func:`agenttune.training.rollouts.episode_reward`) gets one score per completion and logs each
  judge as ``reward/judge/<name>``.

The judged logs are appended to ``<log_dir>/judged-step-<N>.jsonl``. :func:`trajectory_scores` scores the
trajectories of each agent (:mod:`agenttune.events.trajectory`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import mean
from typing import Any, TypedDict

from langgraph.graph import END, START, StateGraph

from agenttune.agents.episode import task_id
from agenttune.events.io import write_jsonl
from agenttune.events.projections.evaluator import evaluator_input
from agenttune.events.schema import Event, EventLog, RewardPayload, replace
from agenttune.events.trajectory import summarize
from agenttune.rewards.judge import LLMJudge
from agenttune.training.rollouts import EpisodeRollouts, RolloutBatch

Router = Callable[[Sequence[Any], int], str]  # (prompts, step) -> policy name
# (log, task) -> (question, reference answer) the judge sees
JudgeColumns = Callable[[EventLog, Any], tuple[str, str]]


@dataclass
class PolicyNode:
    name: str
    rollouts: EpisodeRollouts


@dataclass
class JudgeNode:
    name: str
    judge: LLMJudge
    columns: JudgeColumns


class BatchState(TypedDict, total=False):
    prompts: list[Any]
    model: Any
    step: int
    policy: str
    batch: RolloutBatch


def round_robin(names: Sequence[str]) -> Router:
    """A router that gives training step ``s`` to policy ``s mod len(names)``."""
    return lambda prompts, step: names[step % len(names)]


class RolloutJudgeGraph:
    def __init__(
        self,
        policies: Sequence[PolicyNode],
        judges: Sequence[JudgeNode],
        router: Router | None = None,
        log_dir: str | Path | None = None,
    ) -> None:
        if not policies or not judges:
            raise ValueError("a rollout/judge graph needs at least one policy and one judge")
        names = [node.name for node in [*policies, *judges]]
        if len(set(names)) != len(names) or "router" in names:
            raise ValueError(f"node names must be unique and not 'router': {names}")
        self.policies = {p.name: p for p in policies}
        self.judges = list(judges)
        self.router = router or (lambda prompts, step: policies[0].name)
        self.log_dir = Path(log_dir) if log_dir is not None else None
        self.routed: list[str] = []  # the policy of each batch, in order
        self.graph = self._compile()

    def _compile(self):
        graph = StateGraph(BatchState)
        graph.add_node("router", self._route)
        for policy in self.policies.values():
            graph.add_node(policy.name, self._rollout_node(policy))
            graph.add_edge(policy.name, self.judges[0].name)
        for judge in self.judges:
            graph.add_node(judge.name, self._judge_node(judge))
        for first, second in zip(self.judges, self.judges[1:], strict=False):
            graph.add_edge(first.name, second.name)
        graph.add_edge(START, "router")
        graph.add_conditional_edges("router", lambda state: state["policy"], list(self.policies))
        graph.add_edge(self.judges[-1].name, END)
        return graph.compile()

    # ---- nodes -------------------------------------------------------------------------------------------
    def _route(self, state: BatchState) -> dict[str, Any]:
        name = self.router(state["prompts"], state["step"])
        if name not in self.policies:
            raise ValueError(f"the router chose {name!r}; policies: {sorted(self.policies)}")
        self.routed.append(name)
        return {"policy": name}

    def _rollout_node(self, policy: PolicyNode):
        def rollout(state: BatchState) -> dict[str, Any]:
            batch = policy.rollouts.sample(state["prompts"], state["model"], state["step"])
            batch.logs = [_attributed(log, policy.name) for log in batch.logs]
            return {"batch": batch}

        return rollout

    def _judge_node(self, node: JudgeNode):
        def judge(state: BatchState) -> dict[str, Any]:
            batch = state["batch"]
            rollouts = self.policies[state["policy"]].rollouts
            by_id = {task_id(task, index): task for index, task in enumerate(rollouts.tasks)}
            tasks = [by_id[log.task_id] for log in batch.logs]
            answers = [evaluator_input(log)["final_answer"] or "" for log in batch.logs]
            pairs = [node.columns(log, task) for log, task in zip(batch.logs, tasks, strict=True)]
            questions, references = [q for q, _ in pairs], [r for _, r in pairs]
            scores = node.judge.score(answers, questions, references)
            batch.logs = [
                _with_reward(log, f"judge/{node.name}", score, node.name)
                for log, score in zip(batch.logs, scores, strict=True)
            ]
            return {"batch": batch}

        return judge

    # ---- GRPO's rollout function ---------------------------------------------------------------------------
    def dataset(self):
        """The prompt dataset (every policy shares the tasks and their opening conversations)."""
        return next(iter(self.policies.values())).rollouts.dataset()

    def sample(self, prompts: list[Any], model: Any, step: int) -> RolloutBatch:
        """One batch through the graph; each log ends with the panel's ``total``."""
        batch = self.graph.invoke({"prompts": prompts, "model": model, "step": step})["batch"]
        batch.logs = [_with_panel_total(log, [j.name for j in self.judges]) for log in batch.logs]
        batch.rewards = [log.rewards()["total"] for log in batch.logs]
        if self.log_dir is not None:
            write_jsonl(batch.logs, self.log_dir / f"judged-step-{step}.jsonl")
        return batch

    def __call__(self, prompts: list[Any], trainer: Any) -> dict[str, Any]:
        """TRL's ``rollout_func(prompts, trainer)``, like :meth:`EpisodeRollouts.__call__`."""
        model = trainer.accelerator.unwrap_model(trainer.model)
        return self.sample(prompts, model, trainer.state.global_step).rollout_output()

    def reward_functions(self) -> list[Callable[..., list[float | None]]]:
        """One TRL reward function per judge, each one score per completion (read from the judged logs)."""
        return [_judge_reward(judge.name) for judge in self.judges]


def trajectory_scores(logs: Sequence[EventLog]) -> dict[str, dict[str, Any]]:
    """The trajectory metrics of each agent's logs (``metadata.agent``), and the panel's mean total."""
    by_agent: dict[str, list[EventLog]] = {}
    for log in logs:
        by_agent.setdefault(str(log.metadata.get("agent", "")), []).append(log)
    return {
        agent: {**summarize(group), "total": mean(log.rewards().get("total", 0.0) for log in group)}
        for agent, group in by_agent.items()
    }


def _judge_reward(name: str):
    def reward(completions: list[Any], eventlog: list[EventLog], **kwargs: Any) -> list[float | None]:
        return [log.rewards().get(f"judge/{name}") for log in eventlog]

    reward.__name__ = f"judge/{name}"
    return reward


def _attributed(log: EventLog, agent: str) -> EventLog:
    events = [
        replace(e, metadata={**e.metadata, "agent": e.metadata.get("agent", agent)}) for e in log.events
    ]
    return replace(log, events=events, metadata={**log.metadata, "agent": agent})


def _with_reward(log: EventLog, name: str, value: float | None, agent: str) -> EventLog:
    info = {} if value is not None else {"unscored": True}
    step = log.events[-1].step if log.events else 0
    event = Event(
        payload=RewardPayload(scope="episode", name=name, value=float(value or 0.0), info=info),
        actor="judge",
        step=step,
        metadata={"agent": agent},
    )
    return replace(log, events=[*log.events, event])


def _with_panel_total(log: EventLog, judges: Sequence[str]) -> EventLog:
    scored = [
        e.payload.value
        for e in log.events
        if e.kind.value == "reward"
        and e.payload.name in {f"judge/{j}" for j in judges}
        and not e.payload.info
    ]
    return _with_reward(log, "total", mean(scored) if scored else 0.0, "panel")
