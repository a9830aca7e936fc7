"""Training arguments shared by every algorithm, read from :class:`~agenttune.config.AlgorithmConfig`.

Metrics are reported by :class:`~agenttune.training.callbacks.MetricsCallback` (``report_to="none"``), checkpoints
go under the given output folder, bf16 mixed precision is used on a CUDA GPU that supports it unless
``algorithm.bf16`` says otherwise (true: on the CPU too, under CPU autocast), and ``use_cpu`` is set when no GPU is
present. :func:`trl_config` adds the algorithm's pass-through options
(``algorithm.trl``) and builds the TRL config.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

from agenttune.config import AlgorithmConfig

TRL_DEPRECATED_CALLS = r"`(is_gradient_checkpointing|gradient_checkpointing_(enable|disable))` is deprecated"


@dataclass
class SamplingConfig(AlgorithmConfig):
    """The fields of the sampling trainers (GRPO, RLOO): ``num_generations`` samples of each prompt."""

    num_generations: int = 2  # completions (episodes) sampled per prompt: a GRPO group
    # TRL's cap on a sampled completion (single-turn sampling); episode rollouts are bounded by the strategy's
    # max_turns, the engine's max_new_tokens and the tool results
    max_completion_length: int = 48
    epsilon: float = 0.2  # policy clip range
    beta: float = (
        0.0  # KL coefficient (beta > 0 needs a reference model: LoRA, or a model loaded from a path)
    )
    # GRPOTrainer's loss forward encodes each prompt once per group, packed with its completions
    # (training/shared_prompt.py); false: TRL's forward, one full row per completion
    share_prompt: bool = True


def on_gpu() -> bool:
    """Whether training runs on a CUDA GPU."""
    import torch

    return torch.cuda.is_available()


def common_arguments(algorithm: AlgorithmConfig, output_dir: str) -> dict[str, Any]:
    """Keyword arguments that every TRL config (a ``TrainingArguments`` subclass) takes the same way."""
    gpu = on_gpu()
    return {
        "output_dir": output_dir,
        "learning_rate": algorithm.learning_rate,
        "max_steps": algorithm.max_steps,
        "per_device_train_batch_size": algorithm.per_device_batch_size,
        "gradient_accumulation_steps": algorithm.gradient_accumulation_steps,
        "warmup_steps": algorithm.warmup_ratio,  # a float below 1 is a ratio of max_steps
        "logging_steps": algorithm.logging_steps,
        "save_strategy": "steps",
        "save_steps": algorithm.save_steps,
        "save_total_limit": algorithm.save_total_limit,
        "seed": algorithm.seed,
        "report_to": "none",
        "use_cpu": not gpu,
        "bf16": mixed_bf16(algorithm),
    }


def mixed_bf16(algorithm: AlgorithmConfig) -> bool:
    """Whether training runs under bf16 autocast: ``algorithm.bf16``, or when unset, on a CUDA GPU that supports it."""
    import torch

    if algorithm.bf16 is not None:
        return algorithm.bf16
    return on_gpu() and torch.cuda.is_bf16_supported()


def on_policy_arguments(algorithm: SamplingConfig, output_dir: str) -> dict[str, Any]:
    """Arguments of the sampling trainers (GRPO, RLOO).

    ``per_device_batch_size`` counts prompts: each is sampled ``num_generations`` times, so TRL's batch size, which
    counts completions, is their product (and always divisible by ``num_generations``, as TRL requires).
    """
    return {
        **common_arguments(algorithm, output_dir),
        "per_device_train_batch_size": algorithm.per_device_batch_size * algorithm.num_generations,
        "num_generations": algorithm.num_generations,
        "max_completion_length": algorithm.max_completion_length,
        "beta": algorithm.beta,
        "epsilon": algorithm.epsilon,
    }


def trl_config(config_class: type, algorithm: AlgorithmConfig, arguments: dict[str, Any]):
    """``config_class(**arguments, **algorithm.trl)``: the project's arguments plus the pass-through options.

    An option TRL does not know fails with the config's own TypeError naming it; one the project already sets
    (from a typed field, or for every run, like ``report_to``) fails here, naming it.
    """
    taken = sorted(set(algorithm.trl) & set(arguments))
    if taken:
        raise ValueError(
            f"algorithm.trl sets {taken}, which {algorithm.name} already sets from its typed fields or for every "
            "run (agenttune/training/arguments.py): set the typed field instead"
        )
    options = dict(algorithm.trl)
    # TRL's configs default `gradient_checkpointing` to True, which transformers 5 reads as a deprecated alias of
    # `activation_checkpointing` and warns about on every run: pass the current name with the same value.
    options.setdefault("activation_checkpointing", options.pop("gradient_checkpointing", True))
    # TRL 1.16's own code (trl/models/utils.py, around generation and the reference model) still calls the model's
    # deprecated gradient_checkpointing_* methods; those FutureWarnings concern TRL, not a choice made here.
    warnings.filterwarnings("ignore", message=TRL_DEPRECATED_CALLS, category=FutureWarning)
    return config_class(**arguments, **options)
