"""A benchmark is one class registered by name; the generic pipelines (``evaluate``, ``rl``, ``distill``,
``self_evolve``, ``train_on_logs``) use nothing else, so a new benchmark needs no pipeline.

``benchmark=NAME`` (or ``benchmark.name=NAME``) picks the class registered under ``NAME`` and
:func:`load_benchmark` builds it from the composed config. What a benchmark provides:

============================  =====================================================================================
``tasks(split, limit)``       the first ``limit`` tasks of ``"train"`` or ``"eval"`` (default: the config's
                              ``benchmark.num_train`` / ``num_eval``); anything its harness's ``reset`` takes, an
                              ``id``/``task_id`` naming each in the logs
``harness(task)``             a fresh harness for one episode of ``task``
``reward()``                  an :class:`~agenttune.rewards.episode.EpisodeReward` scoring finished EventLogs
                              (on-policy training)
``episode_scores(logs,        one mapping of metric -> value per episode, in log order (None: the benchmark has
tasks)``                      only ``metrics``); the pipelines average them per task (``task_key``), report their
                              means over tasks with ``/n`` and 95% bootstrap ``/ci_low``, ``/ci_high``, and ``rl``
                              pairs them by task (``delta/<metric>``)
``task_key(log)``             which task an episode played (default its ``task_id``; tau2 adds the domain)
``task_key_of(task, index)``  the same key from the task, before it is played (a resumed job matches recorded
                              episodes to tasks by it)
``metrics(logs, tasks)``      aggregate values of a phase's logs that are no mean of episode scores (counts, index
                              sizes), reported beside those means; the whole report of a benchmark without
                              ``episode_scores`` (the pipelines prefix them: ``eval/avg_reward``)
``teacher(task, tokenizer,    a scripted engine that plays ``task``: ``oracle`` plays it well (a teacher to distil),
kind)``                       other kinds the benchmark names (tau2's perturbed oracles) play it badly on purpose
``check(log, task)``          why a teacher trajectory must not be trained on (``""`` keeps it)
``record(log, harness)``      the finished episode with what the benchmark's metrics read added (default: as is)
``recorded_logs()``           recorded trajectories to train on offline (the ADP samples)
``submission(logs)``          the evaluation in a public leaderboard's format (tau2), written to submission.json
============================  =====================================================================================

A benchmark that a self-improvement method (``pipeline=self_evolve``) can run on also describes each of its domains
(:meth:`Benchmark.domain`, a :class:`Domain`): the method reads its domain facts there and never imports the
benchmark.

Built-in benchmarks are imported when first named (:data:`BUILT_IN`); one written elsewhere registers itself and
is imported by ``benchmark.module`` (``examples/arithmetic.py``, ``examples/conf/benchmark/arithmetic.yaml``)::

    @register("arithmetic")
    class Arithmetic(Benchmark):
        def tasks(self, split): ...
        def harness(self, task): ...

What a benchmark offers the pipelines (:meth:`Benchmark.provides`: its splits and the optional methods it
implements) is what :mod:`agenttune.pipelines.fit` checks against the chosen pipeline before a job starts.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from omegaconf import DictConfig

from agenttune.agents.episode import task_id
from agenttune.events.schema import EventLog

if TYPE_CHECKING:
    from agenttune.engines.base import Engine
    from agenttune.harness.protocol import Harness
    from agenttune.rewards.episode import EpisodeReward

SPLITS = ("train", "eval")
# What a pipeline may need of a benchmark beyond tasks and a harness: capability -> (the method that provides it,
# what it means). Its splits ("train", "eval") are the other capabilities.
OPTIONAL = {
    "reward": ("reward", "reward to train on-policy with"),
    "teacher": ("teacher", "scripted agent (teacher or oracle)"),
    "recorded_logs": ("recorded_logs", "recorded trajectories to train on"),
    "domains": ("domain", "domains described for self-improvement"),
}
BUILT_IN = {
    "cuad_search": "agenttune.benchmarks.cuad.benchmark",
    "legalbench_rag": "agenttune.benchmarks.legalbench_rag.benchmark",
    "adp_samples": "agenttune.benchmarks.adp_samples",
    "tau2_airline": "agenttune.benchmarks.tau2.benchmark",
    "tau2_retail": "agenttune.benchmarks.tau2.benchmark",
    "tau2_telecom": "agenttune.benchmarks.tau2.benchmark",
    "tau2_banking": "agenttune.benchmarks.tau2.benchmark",
    "bfcl_multi_turn": "agenttune.benchmarks.bfcl.benchmark",
}
_REGISTRY: dict[str, type[Benchmark]] = {}


@dataclass(frozen=True)
class Domain:
    """One domain of a benchmark as a self-improvement method sees it.

    ``harness`` describes the tools (``tool_schemas()``, ``tool_kinds()``, ``tool_outputs()``); ``tool_kinds``
    annotates every tool the episode may see (the user's included) as read or write; ``rules`` are the domain's
    ToolGraph rules; ``collection_agents`` maps a scripted agent's kind to task -> engine (the oracle for
    successes, perturbed ones for failures); ``successful`` says whether an episode succeeded and
    ``compare(before, after)`` counts the tasks whose score went up (``improved``) or down (``regressed``) between
    two runs; ``action_is_correct(action, log)`` whether an action matched what the task required.
    """

    name: str
    harness: Any
    tool_kinds: dict[str, str]
    rules: Mapping[str, Any]
    collection_agents: Mapping[str, Callable[[Any], Any]]
    compare: Callable[[Sequence[EventLog], Sequence[EventLog]], Mapping[str, int]]
    successful: Callable[[EventLog], bool]
    action_is_correct: Callable[[Any, EventLog], bool] | None = None


class Benchmark:
    """The interface of every benchmark (see the module docstring); ``cfg`` is the whole composed config.

    ``splits`` names the splits it has: an evaluation-only benchmark has no ``"train"``, recorded data to learn
    from no ``"eval"``.
    """

    splits: tuple[str, ...] = SPLITS
    uses_retrieval: bool = False  # whether it searches an index built by the ``retrieval`` group

    @classmethod
    def searches(cls, cfg: DictConfig) -> bool:
        """Whether a job configured by ``cfg`` searches the ``retrieval`` group's index (``uses_retrieval``, unless
        it depends on the config: tau2 searches only when banking_knowledge is among its domains)."""
        return cls.uses_retrieval

    @classmethod
    def provides(cls) -> set[str]:
        """Its splits and each optional capability (:data:`OPTIONAL`) whose method it implements."""
        implemented = {
            name
            for name, (method, _) in OPTIONAL.items()
            if getattr(cls, method) is not getattr(Benchmark, method)
        }
        return set(cls.splits) | implemented

    def __init__(self, cfg: DictConfig) -> None:
        self.cfg = cfg
        self.name = str(cfg.benchmark.name)

    def tasks(self, split: str, limit: int | None = None) -> list[Any]:
        raise NotImplementedError(f"benchmark {self.name!r} has no tasks")

    def harness(self, task: Any) -> Harness:
        raise NotImplementedError(f"benchmark {self.name!r} has no harness")

    def reward(self) -> EpisodeReward:
        raise NotImplementedError(
            f"benchmark {self.name!r} defines no reward, so it cannot be trained on-policy"
        )

    def episode_scores(self, logs: Sequence[EventLog], tasks: Sequence[Any]) -> list[dict[str, float]] | None:
        return None

    def task_key(self, log: EventLog) -> str:
        return log.task_id

    def task_key_of(self, task: Any, index: int) -> str:
        """What :meth:`task_key` says of an episode of ``task``, the ``index``-th task of its phase."""
        return task_id(task, index)

    def metrics(self, logs: Sequence[EventLog], tasks: Sequence[Any]) -> dict[str, float]:
        return {}

    def deterministic(self) -> bool:
        """Whether a greedy policy plays each task the same way every time (no sampled user, no random tools), so
        that its episodes do not depend on the job's seed. False unless a benchmark knows better."""
        return False

    def teacher(self, task: Any, tokenizer: Any, kind: str = "oracle") -> Engine:
        raise NotImplementedError(f"benchmark {self.name!r} has no scripted agent {kind!r}")

    def check(self, log: EventLog, task: Any) -> str:
        return ""

    def record(self, log: EventLog, harness: Harness) -> EventLog:
        return log

    def recorded_logs(self) -> list[EventLog]:
        raise NotImplementedError(f"benchmark {self.name!r} has no recorded trajectories to train on offline")

    def submission(self, logs: Sequence[EventLog]) -> dict[str, Any] | None:
        """The evaluation ``logs`` in a public leaderboard's submission format (``pipeline=evaluate`` writes it to
        ``submission.json``); None when the benchmark has none."""
        return None

    # ---- for self-improvement methods (see Domain) --------------------------------------------------------
    domains: list[str] = []

    def domain(self, name: str) -> Domain:
        raise NotImplementedError(
            f"benchmark {self.name!r} describes no domains for self-improvement methods"
        )

    def domain_of(self, task: Any) -> str:
        """The domain ``task`` belongs to."""
        raise NotImplementedError(
            f"benchmark {self.name!r} describes no domains for self-improvement methods"
        )

    def domain_tasks(self, domain: str, split: str, limit: int | None = None) -> list[Any]:
        raise NotImplementedError(
            f"benchmark {self.name!r} describes no domains for self-improvement methods"
        )

    def domain_harness(self, domain: str, max_steps: int | None = None) -> Harness:
        raise NotImplementedError(
            f"benchmark {self.name!r} describes no domains for self-improvement methods"
        )

    def limit(self, split: str, limit: int | None) -> int:
        """``limit``, or the config's size of ``split`` (``benchmark.num_train`` / ``num_eval``; 0 means all)."""
        if split not in self.splits:
            raise ValueError(f"benchmark {self.name!r} has no {split!r} split; it has {self.splits}")
        if limit is not None:
            return limit
        return int(self.cfg.benchmark.num_train if split == "train" else self.cfg.benchmark.num_eval)


def compare_task_rewards(before: Sequence[EventLog], after: Sequence[EventLog]) -> dict[str, int]:
    """Tasks whose reward (``log.metadata["reward"]``) went up, down or stayed between two runs, matched by domain
    and task id (a task run several times counts with its mean reward): a :class:`Domain`'s ``compare`` for a
    benchmark whose ``record`` writes the episode's reward and domain to its metadata (tau2, BFCL)."""

    def by_task(logs: Sequence[EventLog]) -> dict[tuple[str, str], float]:
        groups: dict[tuple[str, str], list[float]] = {}
        for log in logs:
            key = (str(log.metadata.get("domain", "")), log.task_id)
            groups.setdefault(key, []).append(float(log.metadata["reward"]))
        return {key: sum(values) / len(values) for key, values in groups.items()}

    old, new = by_task(before), by_task(after)
    shared = old.keys() & new.keys()
    return {
        "improved": sum(new[key] > old[key] for key in shared),
        "regressed": sum(new[key] < old[key] for key in shared),
        "unchanged": sum(new[key] == old[key] for key in shared),
        "unmatched": len(old.keys() ^ new.keys()),
    }


def register(*names: str) -> Callable[[type[Benchmark]], type[Benchmark]]:
    """Class decorator: ``benchmark=NAME`` builds this class, for each of ``names``."""

    def decorate(cls: type[Benchmark]) -> type[Benchmark]:
        for name in names:
            _REGISTRY[name] = cls
        return cls

    return decorate


def benchmark_class(name: str, module: str = "") -> type[Benchmark]:
    """The class registered under ``name``, importing ``module`` (where a benchmark outside agenttune registers
    itself) or a built-in's module on first use."""
    if name not in _REGISTRY and (module or name in BUILT_IN):
        importlib.import_module(module or BUILT_IN[name])
    if name not in _REGISTRY:
        raise KeyError(
            f"benchmark {name!r} is not registered; known: {sorted({*BUILT_IN, *_REGISTRY})} "
            "(set benchmark.module to the module that registers it)"
        )
    return _REGISTRY[name]


def registered_benchmarks() -> dict[str, type[Benchmark]]:
    """Every benchmark known now: the built-in ones (imported) and any registered elsewhere."""
    return {name: benchmark_class(name) for name in sorted({*BUILT_IN, *_REGISTRY})}


def load_benchmark(cfg: DictConfig) -> Benchmark:
    """The benchmark ``cfg.benchmark.name`` names, built from ``cfg``."""
    return benchmark_class(str(cfg.benchmark.name), str(cfg.benchmark.module))(cfg)
