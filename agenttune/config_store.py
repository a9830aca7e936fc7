"""The primary schema, :class:`TrainConfig`, and its registration in Hydra's ConfigStore.

It puts together the group schemas of :mod:`agenttune.config`, the ``workflow`` group's
(:mod:`agenttune.workflows.spec`), the ``self_heal`` group's (:mod:`agenttune.selfheal.config`) and each
algorithm's (:mod:`agenttune.training.registry`), so it stands above them all: the schemas' own modules import
none of this. :func:`register_configs` stores them with the resolvers the YAML files use; :func:`validate_config`
re-checks a composed config before a job starts; :func:`compose_config` composes one in-process.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from hydra.core.config_store import ConfigStore
from omegaconf import MISSING, OmegaConf

from agenttune.config import (
    AlgorithmConfig,
    BenchmarkConfig,
    HarnessConfig,
    LoggerConfig,
    ModelConfig,
    PathsConfig,
    RetrievalConfig,
    RewardConfig,
    SelfEvolveConfig,
    StrategyConfig,
    WarmStartConfig,
    process_rank,
    repo_root,
)
from agenttune.selfheal.config import SelfHealConfig
from agenttune.training.registry import algorithm_info, algorithms
from agenttune.workflows.spec import WorkflowConfig, check_composed


@dataclass
class TrainConfig:
    model: ModelConfig = MISSING
    strategy: StrategyConfig = MISSING
    harness: HarnessConfig = MISSING
    reward: RewardConfig = MISSING
    algorithm: AlgorithmConfig = MISSING
    benchmark: BenchmarkConfig = MISSING
    retrieval: RetrievalConfig = MISSING
    logger: LoggerConfig = MISSING
    paths: PathsConfig = MISSING
    pipeline: str = MISSING  # what the job does: evaluate, rl, distill, ... (docs/guide/configuration.md)
    task_name: str = "train"  # names the output folder: outputs/<task_name>/runs/<time>
    seed: int = 0  # the job's seed: model init, the trainer's data order and sampling, bootstrap intervals
    resume: bool = False  # continue from the last checkpoint in the run folder
    init_from: str | None = (
        None  # start from this checkpoint folder instead of model.path (e.g. a distilled student)
    )
    warm_start: WarmStartConfig = field(default_factory=WarmStartConfig)
    workflow: WorkflowConfig | None = None  # pipeline=workflow: the graph it runs (conf/workflow/)
    self_heal: SelfHealConfig = field(default_factory=SelfHealConfig)  # pipeline=self_heal
    self_evolve: SelfEvolveConfig = field(default_factory=SelfEvolveConfig)  # pipeline=self_evolve


GROUP_SCHEMAS = {
    "model": ModelConfig,
    "strategy": StrategyConfig,
    "harness": HarnessConfig,
    "reward": RewardConfig,
    "benchmark": BenchmarkConfig,
    "retrieval": RetrievalConfig,
    "logger": LoggerConfig,
    "paths": PathsConfig,
    "workflow": WorkflowConfig,
    "self_heal": SelfHealConfig,
}


def validate_config(cfg) -> None:
    """Re-check a composed config against :class:`TrainConfig`, each algorithm node against its own schema.

    Composition already rejects ``group.misspelt=value``; Hydra's append form (``+group.key=value``) opens the
    node for writing, so the job checks once more before it starts and names the unknown key.
    """
    job = OmegaConf.to_container(cfg, resolve=False)
    job.pop("hydra", None)
    schema = OmegaConf.structured(TrainConfig)
    schema.algorithm = algorithm_info(job["algorithm"]["name"]).config
    schema.warm_start.algorithm = algorithm_info(job["warm_start"]["algorithm"]["name"]).config
    OmegaConf.merge(schema, job)
    check_composed(cfg)  # a workflow's graph: kinds, edges, reachability, conditions


def register_configs() -> None:
    """Store the primary schema, one ``schema`` option per group, one ``<name>_schema`` option per algorithm of
    the ``algorithm`` group, and the ``repo_root``, ``rank_zero_dir``, ``gpus_per_job`` and ``unset`` resolvers."""
    store = ConfigStore.instance()
    store.store(name="train_schema", node=TrainConfig)
    for group, schema in GROUP_SCHEMAS.items():
        store.store(group=group, name="schema", node=schema)
    for name, algorithm in algorithms().items():
        store.store(group="algorithm", name=f"{name}_schema", node=algorithm.config)
    if not OmegaConf.has_resolver("repo_root"):
        OmegaConf.register_new_resolver("repo_root", repo_root)
    if not OmegaConf.has_resolver(
        "rank_zero_dir"
    ):  # conf/hydra/default.yaml: one run folder per multi-process run
        OmegaConf.register_new_resolver("rank_zero_dir", _rank_zero_dir)
    if not OmegaConf.has_resolver("gpus_per_job"):  # hydra/launcher=ray: one GPU per job where there are GPUs
        OmegaConf.register_new_resolver("gpus_per_job", _gpus_per_job)
    if not OmegaConf.has_resolver("unset"):  # a value left to the command line: ${unset:how to set it}
        OmegaConf.register_new_resolver("unset", _unset)
    if not OmegaConf.has_resolver(
        "agenttune_help"
    ):  # the text of `python train.py --help` (conf/hydra/default.yaml)
        OmegaConf.register_new_resolver("agenttune_help", lambda: _help_text())


def compose_config(overrides: list[str], output_dir: str | Path):
    """conf/train.yaml composed as ``python train.py OVERRIDES`` would, with the run folder set to ``output_dir`` and
    Hydra's runtime config set (for code that runs a job in-process: tests, bench scripts)."""
    from hydra import compose, initialize_config_dir
    from hydra.core.hydra_config import HydraConfig
    from omegaconf import open_dict

    register_configs()
    with initialize_config_dir(version_base="1.3", config_dir=str(Path(repo_root()) / "conf")):
        cfg = compose("train", overrides=overrides, return_hydra_config=True)
    with open_dict(cfg):  # a real run sets it at job start; compose leaves it empty
        cfg.hydra.runtime.output_dir = str(output_dir)
    HydraConfig.instance().set_config(cfg)
    return cfg


def _unset(how: str):
    """``${unset:...}``: fails whenever the value is read, saying how to set it (a YAML ``???`` cannot do this
    in an experiment: merged over the inherited value, it keeps that value)."""
    raise ValueError(f"not set: {how}")


def _rank_zero_dir(path: str) -> str:
    """``path`` for the main process; a scratch folder, deleted when the job ends, for the other processes of a
    multi-process run: the main process alone writes the run folder."""
    rank = process_rank()
    return path if rank == 0 else str(Path(tempfile.gettempdir()) / f"agenttune-rank{rank}" / Path(path).name)


def _gpus_per_job() -> int:
    import torch

    return 1 if torch.cuda.is_available() else 0


def _help_text() -> str:
    from agenttune.cli_help import help_text

    return help_text(Path(repo_root()) / "conf")
