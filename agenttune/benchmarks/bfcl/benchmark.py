"""``benchmark=bfcl_multi_turn``: the Berkeley Function Calling Leaderboard's multi-turn categories, run in-process
on BFCL's own tool classes and scored by BFCL's own checker (the ``bfcl-eval`` package, installed ``--no-deps``).

``benchmark.category`` picks one of ``multi_turn_base``, ``multi_turn_miss_func``, ``multi_turn_miss_param``,
``multi_turn_long_context`` (or its short name: ``base``, ``miss_func``, ...); each has 200 tasks. BFCL has no
training split, so, as for tau2's banking domain, ``train`` is every third task (67) and ``benchmark.split``
``test`` the other 133 (``base``: all 200). An episode is one task's user turns in a
:class:`~agenttune.benchmarks.bfcl.harness.BfclHarness` with ``harness.max_steps`` actions per turn; its reward
is BFCL's verdict, 1.0 or 0.0, which is also the reward for on-policy training.

Scripted agents: ``oracle`` plays the ground-truth calls (1.0 on every task of every category) and the
perturbed oracles of :data:`agenttune.harness.scripted_agent.PERTURBATIONS` play them with one mistake. For the
self-evolution method each category is a domain (:meth:`BfclMultiTurn.domain`).

    python train.py +experiment=tau2_oracle benchmark=bfcl_multi_turn benchmark.category=multi_turn_miss_func
"""

from __future__ import annotations

import functools
import statistics
from collections.abc import Callable, Sequence
from typing import Any

from agenttune.benchmarks.base import Benchmark, Domain, compare_task_rewards, register
from agenttune.benchmarks.bfcl import tools
from agenttune.benchmarks.bfcl.harness import BfclHarness
from agenttune.benchmarks.bfcl.script import oracle_script
from agenttune.engines.scripted import ScriptedEngine
from agenttune.events.schema import Event, EventKind, EventLog, RewardPayload, replace
from agenttune.harness.bfcl import CATEGORIES, load_bfcl_ground_truth, load_bfcl_records, load_bfcl_tasks
from agenttune.harness.scripted_agent import PERTURBATIONS, perturb, script_engine
from agenttune.harness.stateful_tools import StatefulTask
from agenttune.rewards.episode import EpisodeReward, harness_scored

AGENTS = ("oracle", *PERTURBATIONS)
TRAIN_EVERY = 3  # the train split: every third task


def category_name(name: str) -> str:
    """``miss_func`` or ``multi_turn_miss_func`` -> ``multi_turn_miss_func``; unknown names fail, listing the
    categories."""
    full = name if name.startswith("multi_turn_") else f"multi_turn_{name}"
    if full not in CATEGORIES:
        raise ValueError(f"benchmark.category={name!r}: choose one of {CATEGORIES}")
    return full


def episode_reward(log: EventLog) -> float:
    """BFCL's verdict on the episode, 1.0 or 0.0."""
    return float(log.metadata["reward"])


@register("bfcl_multi_turn")
class BfclMultiTurn(Benchmark):
    def __init__(self, cfg) -> None:
        super().__init__(cfg)
        self.category = category_name(str(cfg.benchmark.category))
        self.domains = [self.category]
        if cfg.benchmark.split not in ("test", "base"):
            raise ValueError(f"benchmark.split={cfg.benchmark.split!r}: BFCL's eval split is test or base")

    # ---- tasks and episodes ------------------------------------------------------------------------------
    @functools.cache  # noqa: B019 - one benchmark per job; the package's data never changes
    def _data(self) -> tuple[list[StatefulTask], dict[str, dict[str, Any]], dict[str, list[list[str]]]]:
        records = {record["id"]: record for record in load_bfcl_records(self.category)}
        return load_bfcl_tasks(self.category), records, load_bfcl_ground_truth(self.category)

    def domain_tasks(self, domain: str, split: str, limit: int | None = None) -> list[StatefulTask]:
        limit = self.limit(split, limit)
        tasks = self._data()[0]
        if split == "train":
            tasks = tasks[::TRAIN_EVERY]
        elif self.cfg.benchmark.split == "test":
            tasks = [task for index, task in enumerate(tasks) if index % TRAIN_EVERY]
        return tasks[:limit] if limit > 0 else list(tasks)

    def tasks(self, split: str, limit: int | None = None) -> list[StatefulTask]:
        return self.domain_tasks(self.category, split, limit)

    def domain_harness(self, domain: str, max_steps: int | None = None) -> BfclHarness:
        _, records, ground_truth = self._data()
        return BfclHarness(
            records,
            ground_truth,
            max_steps=max_steps or self.cfg.harness.max_steps,
            tool_timeout_s=self.cfg.harness.tool_timeout_s,
        )

    def harness(self, task: StatefulTask) -> BfclHarness:
        return self.domain_harness(self.category)

    def domain_of(self, task: StatefulTask) -> str:
        return self.category

    def record(self, log: EventLog, harness: BfclHarness) -> EventLog:
        """``log`` with its BFCL metadata, scored by closing ``harness`` when the loop ended it first."""
        reward = next(
            (e for e in reversed(log.events) if e.kind == EventKind.REWARD and e.payload.scope == "episode"),
            None,
        )
        events = log.events
        if reward is None:
            result = harness.close()
            payload = RewardPayload(scope="episode", name="harness", value=result.reward, info=result.info)
            reward = Event(payload=payload, actor="env", step=events[-1].step if events else 0)
            events = [*events, reward]
        info = reward.payload.info
        metadata = {
            **log.metadata,
            "domain": self.category,
            "reward": float(reward.payload.value),
            "termination_reason": info.get("termination", ""),
            "steps": info.get("steps", 0),
            "max_steps": harness.max_steps,
            "bfcl_error_type": info.get("bfcl", {}).get("error_type", ""),
            "bfcl_turns_passed": info.get("bfcl", {}).get("turns_passed", 0),
            "bfcl_turns": info.get("bfcl", {}).get("turns", 0),
            "agent": str(self.cfg.harness.agent),
        }
        return replace(log, events=events, metadata=metadata)

    # ---- scores --------------------------------------------------------------------------------------------
    def reward(self) -> EpisodeReward:
        return harness_scored(episode_reward)

    def episode_scores(
        self, logs: Sequence[EventLog], tasks: Sequence[StatefulTask]
    ) -> list[dict[str, float]]:
        """Each episode's BFCL verdict (``avg_reward``) and the share of its turns that pass BFCL's checker before
        the first that fails (``turn_accuracy``), overall and under its category (``<category>/avg_reward``)."""
        scores = []
        for log in logs:
            score = {
                "avg_reward": episode_reward(log),
                "turn_accuracy": log.metadata["bfcl_turns_passed"] / max(log.metadata["bfcl_turns"], 1),
            }
            scores.append(score | {f"{self.category}/{name}": value for name, value in score.items()})
        return scores

    def metrics(self, logs: Sequence[EventLog], tasks: Sequence[StatefulTask]) -> dict[str, float]:
        """Accuracy, and how many episodes failed with each of BFCL's error types."""
        metrics = {"avg_reward": statistics.fmean(map(episode_reward, logs)), "episodes": float(len(logs))}
        for log in logs:
            error = log.metadata.get("bfcl_error_type")
            if error:
                key = f"{self.category}/errors/{error.removeprefix('multi_turn:')}"
                metrics[key] = metrics.get(key, 0.0) + 1.0
        return metrics

    # ---- scripted agents and the self-evolution method's view -----------------------------------------------
    def scripted_agent(self, kind: str, tokenizer: Any = None) -> Callable[[StatefulTask], ScriptedEngine]:
        """``oracle`` or a perturbation's name, as task -> scripted engine (token-exact with a ``tokenizer``); a
        perturbation that does not apply to a task plays the oracle there."""
        if kind not in AGENTS:
            raise ValueError(f"harness.agent={kind!r}: choose policy or one of {AGENTS}")
        ground_truth = self._data()[2]
        kinds = tools.tool_kinds()
        kind_of = lambda event: kinds.get(event.payload.name) if event.kind == EventKind.TOOL_CALL else None  # noqa: E731

        def engine(task: StatefulTask) -> ScriptedEngine:
            script = oracle_script(task, ground_truth[task.id])
            played = (perturb(script, kind, kind_of) if kind != "oracle" else None) or script
            return script_engine(played, tokenizer=tokenizer)

        return engine

    def teacher(self, task: StatefulTask, tokenizer: Any, kind: str = "oracle") -> ScriptedEngine:
        return self.scripted_agent(kind, tokenizer)(task)

    def domain(self, name: str) -> Domain:
        return Domain(
            name=name,
            harness=self.domain_harness(name),
            tool_kinds=tools.tool_kinds(),
            rules={},
            collection_agents={kind: self.scripted_agent(kind) for kind in AGENTS},
            compare=compare_task_rewards,
            successful=lambda log: episode_reward(log) >= 1.0,
        )
