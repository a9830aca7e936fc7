"""The algorithms, by name: each module of :data:`MODULES` declares one :class:`Algorithm` as ``ALGORITHM``.

An algorithm is one module plus one YAML. The module holds its typed config (a subclass of
:class:`~agenttune.config.AlgorithmConfig` with only the fields its builder reads), its builder and the
declaration; ``conf/algorithm/<name>.yaml`` lists ``- <name>_schema`` (stored by
:func:`agenttune.config_store.register_configs`) in its defaults, so a key of another algorithm fails at compose
time, naming the key. Modules import TRL inside their builders: importing them (and :mod:`agenttune.training`)
does not import TRL.

Pass-through: ``algorithm.trl`` holds any other option of the algorithm's TRL config (``GRPOConfig``,
``RLOOConfig``, ``DPOConfig``, ``KTOConfig``, ``SFTConfig``), given to its constructor unchanged, so an unknown
option fails with TRL's own TypeError naming it when the trainer is built, before training starts. An option the
project already sets from the typed fields (``learning_rate``, ``beta``, ...) is refused: set the typed field.
The project's PPO loop has no TRL config and refuses any ``algorithm.trl``. On the command line, add each
option with ``+`` (``++`` replaces one a YAML file already sets), or all at once::

    python train.py +experiment=cuad_grpo +algorithm.trl.top_k=20 +algorithm.trl.mask_truncated_completions=true
    python train.py +experiment=cuad_grpo '+algorithm.trl={top_k: 20, mask_truncated_completions: true}'

and in a YAML file ``trl: {top_k: 20}`` under ``algorithm:``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from omegaconf import DictConfig, OmegaConf

from agenttune.config import AlgorithmConfig

if TYPE_CHECKING:
    from agenttune.training.spec import TrainerSpec

MODULES = (
    "agenttune.training.grpo",
    "agenttune.training.rloo",
    "agenttune.training.ppo",
    "agenttune.training.dpo",
    "agenttune.training.bco",
    "agenttune.training.kto",
    "agenttune.training.sft",
)


@dataclass(frozen=True)
class Algorithm:
    """What the project needs to know about an algorithm.

    Attributes:
        name: its name in ``algorithm.name`` and ``conf/algorithm/<name>.yaml``.
        config: its typed config, a subclass of :class:`~agenttune.config.AlgorithmConfig`.
        build: ``build(spec) -> trainer`` (a TRL trainer or an object with ``train(resume_from_checkpoint)``,
            ``state.global_step`` and ``save_model(folder)``).
        data: the :class:`~agenttune.training.data.TrainingData` field it trains on from recorded data, or None
            when it only samples episodes (``rollouts``).
        on_policy: it samples while it trains (``rollouts`` through the episode loop, or ``reward_funcs``).
    """

    name: str
    config: type[AlgorithmConfig]
    build: Callable[[TrainerSpec], Any]
    data: str | None
    on_policy: bool = False


@cache
def algorithms() -> dict[str, Algorithm]:
    """Every algorithm of :data:`MODULES`, by name, in that order."""
    found = {}
    for path in MODULES:
        algorithm = importlib.import_module(path).ALGORITHM
        if algorithm.name in found:
            raise ValueError(f"{path} declares algorithm {algorithm.name!r}, which another module declared")
        found[algorithm.name] = algorithm
    return found


def algorithm_info(name: str) -> Algorithm:
    """The algorithm called ``name``, or a ValueError listing the known ones."""
    known = algorithms()
    if name not in known:
        raise ValueError(f"algorithm.name={name!r}: choose one of {list(known)}")
    return known[name]


def algorithm_config(node) -> AlgorithmConfig:
    """The ``algorithm`` group (a DictConfig or a dict with a ``name``) as its algorithm's typed config; a key the
    schema lacks raises, naming it."""
    schema = algorithm_info(node["name"]).config
    if isinstance(node, DictConfig):  # resolved where it sits, so ``seed: ${seed}`` reads the job's seed
        node = OmegaConf.to_container(node, resolve=True)
    return OmegaConf.to_object(OmegaConf.merge(OmegaConf.structured(schema), node))
