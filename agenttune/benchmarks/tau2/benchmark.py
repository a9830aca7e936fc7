"""``benchmark=tau2_airline|tau2_retail|tau2_telecom|tau2_banking``: tau2-bench domains, run in-process and scored by
tau2's own evaluators (banking_knowledge is agenttune's implementation, :mod:`agenttune.benchmarks.tau2.banking`).

Tasks are the package's splits of each domain of ``benchmark.domains`` (``"train"`` is tau2's train split,
``"eval"`` is ``benchmark.split``, default ``test``; ``num_train`` / ``num_eval`` > 0 keep the first that many per
domain; the eval split repeats each task ``benchmark.trials`` times). Each episode runs in its own
:class:`~agenttune.benchmarks.tau2.harness.Tau2Harness` with the user ``harness.user`` names: ``scripted`` (the CPU
default) or ``llm`` (:class:`~agenttune.benchmarks.tau2.users.LLMUser`, tau2's user-simulator role played by the
engine ``harness.user_model`` describes, with the task's user instructions and, in telecom, the user's tools); the
harness scores the episode with tau2's environment, action and communicate evaluators (the episode
REWARD ``harness``), which is also the reward for on-policy training. Scripted agents: ``oracle`` (the task's gold
actions) and the perturbed oracles of :data:`~agenttune.benchmarks.tau2.oracle.PERTURBATIONS`. Each domain's metrics
include tau2's pass^k for k = 1..trials with intervals over tasks; :meth:`Tau2.submission` is the run in the
leaderboard's format.

For the self-evolution method (``pipeline=self_evolve``) the benchmark also describes each domain
(:class:`~agenttune.benchmarks.base.Domain`): a harness naming its tools, ToolGraph rules, the scripted agents
that collect successes and failures, and tau2's check of whether an action matched a gold action.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from agenttune.benchmarks.base import Benchmark, Domain, compare_task_rewards, register
from agenttune.benchmarks.tau2.domains import load_tasks
from agenttune.benchmarks.tau2.harness import Tau2Harness
from agenttune.benchmarks.tau2.metrics import (
    episode_reward,
    episode_score,
    gold_action_matched,
    summarize,
)
from agenttune.benchmarks.tau2.oracle import PERTURBATIONS, scripted_agent
from agenttune.benchmarks.tau2.pass_hat import pass_hat_metrics
from agenttune.benchmarks.tau2.rules import rules_for
from agenttune.benchmarks.tau2.runner import record
from agenttune.benchmarks.tau2.submission import leaderboard_submission
from agenttune.benchmarks.tau2.users import LLMUser, ScriptedUser, User, user_model_config
from agenttune.engines.base import Engine
from agenttune.events.schema import EventLog
from agenttune.rewards.episode import EpisodeReward, harness_scored

if TYPE_CHECKING:
    from tau2.data_model.tasks import Task

TAU2_SPLITS = {"train": "train"}
AGENTS = ("oracle", *PERTURBATIONS)
USERS = ("scripted", "llm")


@register("tau2_airline", "tau2_retail", "tau2_telecom", "tau2_banking")
class Tau2(Benchmark):
    """``user_engine``, when given, plays the LLM user (``harness.user=llm``) instead of the engine built from
    ``harness.user_model`` (a test's scripted engine)."""

    def __init__(self, cfg, user_engine: Engine | None = None) -> None:
        super().__init__(cfg)
        bench = cfg.benchmark
        self.domains = list(bench.domains) or ([bench.domain] if bench.domain else [])
        if not self.domains:
            raise ValueError(
                "benchmark.domains is empty: choose benchmark=tau2_airline|tau2_retail|tau2_telecom|tau2_banking"
            )
        if "banking_knowledge" in self.domains:  # its KB_search uses the retrieval group's backend
            from agenttune.benchmarks.tau2.banking.knowledge import use_retrieval_config

            use_retrieval_config(cfg)
        if cfg.harness.user not in USERS:
            raise ValueError(f"harness.user={cfg.harness.user!r}: choose one of {USERS}")
        if bench.trials < 1:
            raise ValueError(f"benchmark.trials={bench.trials}: each task needs at least one trial")
        self._user_engine = user_engine
        self._domain_of: dict[int, str] = {}  # id(task) -> its domain (task ids repeat across domains)

    @classmethod
    def searches(cls, cfg) -> bool:
        """banking_knowledge's ``KB_search`` uses the ``retrieval`` group's backend; the other domains search nothing."""
        return "banking_knowledge" in (list(cfg.benchmark.domains) or [cfg.benchmark.domain])

    def domain_tasks(self, domain: str, split: str, limit: int | None = None) -> list[Task]:
        """The first ``limit`` tasks (config's size by default, 0 = all) of ``domain``'s ``split``; in the eval
        split, ``benchmark.trials`` times over (every task, then every task again)."""
        limit = self.limit(split, limit)
        tasks = self._load(domain, TAU2_SPLITS.get(split, self.cfg.benchmark.split))
        tasks = tasks[:limit] if limit > 0 else list(tasks)
        return tasks * self.cfg.benchmark.trials if split == "eval" else tasks

    def tasks(self, split: str, limit: int | None = None) -> list[Task]:
        return [task for domain in self.domains for task in self.domain_tasks(domain, split, limit)]

    def domain_harness(self, domain: str, max_steps: int | None = None) -> Tau2Harness:
        return Tau2Harness(domain, user=self.user(), max_steps=max_steps or self.cfg.harness.max_steps)

    def user(self) -> User:
        """A fresh simulated user of the kind ``harness.user`` names (the LLM user's engine is built once)."""
        if self.cfg.harness.user == "scripted":
            return ScriptedUser()
        if self._user_engine is None:
            from agenttune.engines import build_engine

            self._user_engine = build_engine(user_model_config(self.cfg), cache_dir=self.cfg.paths.cache_dir)
        return LLMUser(self._user_engine)

    def deterministic(self) -> bool:
        """The scripted user answers as its script says and tau2's tools are deterministic; an LLM user samples."""
        return self.cfg.harness.user == "scripted"

    def user_simulator(self) -> str:
        """Who played the user, in words (``submission.json``'s ``user_simulator``)."""
        if self.cfg.harness.user == "scripted":
            return "scripted (agenttune ScriptedUser, no LLM)"
        config = user_model_config(self.cfg)
        return f"{config.engine_model or config.name} ({config.engine} engine)"

    def domain_of(self, task: Task) -> str:
        return self._domain_of[id(task)]

    def harness(self, task: Task) -> Tau2Harness:
        return self.domain_harness(self.domain_of(task))

    def reward(self) -> EpisodeReward:
        return harness_scored(episode_reward)

    def metrics(self, logs: Sequence[EventLog], tasks: Sequence[Task]) -> dict[str, float]:
        metrics = {"avg_reward": summarize(logs)["avg_reward"], "episodes": float(len(logs))}
        for domain in self.domains:
            episodes = [log for log in logs if log.metadata.get("domain") == domain]
            if episodes:
                metrics |= {f"{domain}/{key}": value for key, value in summarize(episodes).items()}
                pass_hat = pass_hat_metrics(episodes, self.cfg.seed)
                metrics |= {f"{domain}/{key}": value for key, value in pass_hat.items()}
        return metrics | {"trials": self.cfg.benchmark.trials}

    def submission(self, logs: Sequence[EventLog]) -> dict[str, Any]:
        """The evaluation ``logs`` in tau2's leaderboard format (:mod:`~agenttune.benchmarks.tau2.submission`); the
        model is the policy's name, or the scripted agent's when one played."""
        agent = str(self.cfg.harness.agent)
        model = str(self.cfg.model.name) if agent == "policy" else f"scripted agent: {agent}"
        return leaderboard_submission(logs, model, self.user_simulator(), str(self.cfg.benchmark.split))

    def episode_scores(self, logs: Sequence[EventLog], tasks: Sequence[Task]) -> list[dict[str, float]]:
        """Each episode's reward and rates, overall and under its domain (``<domain>/avg_reward``, ...)."""
        scores = []
        for log in logs:
            score = episode_score(log)
            domain = log.metadata["domain"]
            scores.append(
                {"avg_reward": score["avg_reward"], **{f"{domain}/{k}": v for k, v in score.items()}}
            )
        return scores

    def task_key(self, log: EventLog) -> str:
        return f"{log.metadata['domain']}/{log.task_id}"  # task ids repeat across domains

    def task_key_of(self, task: Task, index: int) -> str:
        return f"{self.domain_of(task)}/{task.id}"

    def teacher(self, task: Task, tokenizer: Any, kind: str = "oracle"):
        if kind not in AGENTS:
            raise ValueError(f"harness.agent={kind!r}: choose policy or one of {AGENTS}")
        return scripted_agent(kind, self.tool_kinds(self.domain_of(task)), tokenizer)(task)

    def record(self, log: EventLog, harness: Tau2Harness) -> EventLog:
        return record(log, harness, harness.domain, str(self.cfg.harness.agent))

    # ---- the self-evolution method's view of a domain -------------------------------------------
    def domain(self, name: str) -> Domain:
        harness = self.domain_harness(name)
        kinds = self.tool_kinds(name)
        return Domain(
            name=name,
            harness=harness,
            tool_kinds=kinds,
            rules=rules_for(name),
            collection_agents={kind: scripted_agent(kind, kinds) for kind in AGENTS},
            compare=compare_task_rewards,
            successful=lambda log: episode_reward(log) >= 1.0,
            action_is_correct=gold_action_matched,
        )

    @functools.cache  # noqa: B019 - one benchmark per job; the domain's tool annotations never change
    def tool_kinds(self, domain: str) -> dict[str, str]:
        """Read/write kinds of the agent's tools and (telecom) the user's."""
        harness = self.domain_harness(domain)
        return {**harness.tool_kinds(), **harness.user_tool_kinds()}

    @functools.cache  # noqa: B019
    def _load(self, domain: str, split: str) -> list[Task]:
        tasks = load_tasks(domain, split)
        self._domain_of.update((id(task), domain) for task in tasks)
        return tasks
