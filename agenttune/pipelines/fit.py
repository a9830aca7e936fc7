"""Check that the chosen components fit together before a job does any work.

A pipeline needs some of what a benchmark offers (:meth:`~agenttune.benchmarks.base.Benchmark.provides`: its
splits, a reward, a scripted agent, recorded trajectories, domains); :data:`NEEDS` says what, for the composed
config. A choice on the command line that the job would not read (``strategy=`` for a job that plays no episode,
``retrieval=`` for a benchmark that searches no index) is refused as well, so that nothing is silently ignored.
Every refusal is one line naming the option and what would work::

    +experiment=cuad_grpo benchmark=legalbench_rag
    -> benchmark=legalbench_rag does not fit pipeline=rl: it has no train split (rl trains on the benchmark's
       train tasks); pipeline=rl takes cuad_search, tau2_airline, ...; legalbench_rag fits pipeline=evaluate
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from omegaconf import DictConfig

from agenttune.benchmarks.base import OPTIONAL, benchmark_class, registered_benchmarks
from agenttune.training.registry import algorithm_info


class MisfitError(ValueError):
    """The composed components cannot work together; the message says which option and what would work."""


def _evaluate(cfg: DictConfig) -> dict[str, str]:
    needs = {"eval": "evaluate plays the benchmark's eval tasks"}
    if cfg.harness.agent != "policy":
        needs["teacher"] = f"harness.agent={cfg.harness.agent} plays the benchmark's scripted agent"
    if cfg.harness.toolgraph.enabled:
        needs["domains"] = "harness.toolgraph.enabled builds a ToolGraph per domain"
    return needs


def _rl(cfg: DictConfig) -> dict[str, str]:
    needs = {
        "train": "rl trains on the benchmark's train tasks",
        "reward": "rl scores its rollouts with the benchmark's reward",
    }
    if cfg.warm_start.enabled and not cfg.init_from:
        needs["teacher"] = "warm_start.enabled distils the benchmark's teacher first"
    return needs


def _distill(cfg: DictConfig) -> dict[str, str]:
    return {
        "train": "distill collects the teacher's episodes on the train tasks",
        "eval": "distill evaluates the student before and after",
        "teacher": "distill trains on the benchmark's teacher",
    }


def _self_evolve(cfg: DictConfig) -> dict[str, str]:
    return {"domains": "self_evolve builds a ToolGraph and DPO pairs per domain"}


def _train_on_logs(cfg: DictConfig) -> dict[str, str]:
    if algorithm_info(cfg.algorithm.name).on_policy:
        return {
            "train": f"{cfg.algorithm.name} samples the benchmark's train tasks",
            "reward": f"{cfg.algorithm.name} scores its samples with the benchmark's reward",
        }
    return {"recorded_logs": "train_on_logs trains on the benchmark's recorded trajectories"}


# pipeline name -> what it needs of a benchmark for this config: capability -> why
NEEDS: dict[str, Callable[[DictConfig], dict[str, str]]] = {
    "evaluate": _evaluate,
    "rl": _rl,
    "distill": _distill,
    "self_evolve": _self_evolve,
    "train_on_logs": _train_on_logs,
}


def chosen(overrides: Sequence[str], group: str) -> str | None:
    """The command-line override (``group=x``, ``group.key=x``, ``+group.key=x``) that sets ``group``, if any."""
    for override in overrides:
        key = override.split("=", 1)[0].lstrip("+~")
        if key == group or key.startswith(group + "."):
            return override
    return None


def plays_episodes(cfg: DictConfig) -> bool:
    """Whether the job runs episodes at all (training on recorded trajectories with an offline algorithm does not)."""
    return cfg.pipeline != "train_on_logs" or algorithm_info(cfg.algorithm.name).on_policy


def _missing(provides: set[str], needs: dict[str, str]) -> list[str]:
    return [name for name in needs if name not in provides]


def _describe(name: str) -> str:
    return f"no {name} split" if name in ("train", "eval") else f"no {OPTIONAL[name][1]}"


def check_benchmark(cfg: DictConfig) -> None:
    """Refuse a benchmark that lacks what the pipeline needs, naming what it lacks and what would work."""
    pipeline, name = str(cfg.pipeline), str(cfg.benchmark.name)
    if pipeline not in NEEDS:  # a pipeline that names its own parts (workflow, self_heal) checks them itself
        return
    needs = NEEDS[pipeline](cfg)
    missing = _missing(benchmark_class(name, str(cfg.benchmark.module)).provides(), needs)
    if not missing:
        return
    known = registered_benchmarks()
    takers = [other for other, cls in known.items() if not _missing(cls.provides(), needs)]
    fits = [p for p, need in NEEDS.items() if not _missing(known[name].provides(), need(cfg))]
    reasons = ", ".join(f"{_describe(m)} ({needs[m]})" for m in missing)
    raise MisfitError(
        f"benchmark={name} does not fit pipeline={pipeline}: it has {reasons}; "
        f"pipeline={pipeline} takes {', '.join(takers) or 'no registered benchmark with this config'}"
        + (f"; {name} fits pipeline={', '.join(fits)}" if fits else "")
    )


def check_ignored(cfg: DictConfig, overrides: Sequence[str]) -> None:
    """Refuse a command-line ``strategy=`` or ``retrieval=`` that this job would not read."""
    strategy = chosen(overrides, "strategy")
    if strategy and not plays_episodes(cfg):
        raise MisfitError(
            f"{strategy} is ignored: pipeline=train_on_logs with algorithm={cfg.algorithm.name} trains on recorded "
            "turns and plays no episode; drop it, or pick an on-policy algorithm (algorithm=grpo, rloo or ppo)"
        )
    retrieval = chosen(overrides, "retrieval")
    if retrieval:
        searching = [name for name, cls in registered_benchmarks().items() if cls.uses_retrieval]
        cls = benchmark_class(str(cfg.benchmark.name), str(cfg.benchmark.module))
        if not cls.searches(cfg) or not plays_episodes(cfg):
            raise MisfitError(
                f"{retrieval} is ignored: benchmark={cfg.benchmark.name} with pipeline={cfg.pipeline} searches no "
                f"index; retrieval= applies to the benchmarks that search ({', '.join(searching)})"
            )


def check_fit(cfg: DictConfig, overrides: Sequence[str] = ()) -> None:
    """Both checks, before a job starts; ``overrides`` are the command line's (``HydraConfig`` ``overrides.task``)."""
    check_benchmark(cfg)
    check_ignored(cfg, overrides)
