"""Value checks of a composed config, run before a job writes anything.

The schemas (:mod:`agenttune.config`) check keys and types when the config is composed; these check what a type
cannot say: ranges (positive batch sizes and step counts, non-negative learning rates, probabilities in range),
the known names of a few closed sets (dtypes, quantization, engines), that ``task_name`` is one folder name (it
forms ``outputs/<task_name>/...``, so ``../x`` could write elsewhere), and that no key is given twice on the
command line (Hydra keeps the last of ``algorithm=dpo algorithm=kto`` silently). Each error is a
:class:`ConfigValueError` naming the key and the value. :func:`check_config` runs in the ``hydra.callbacks`` guard
(:class:`agenttune.tracking.guard.RunGuard`, before Hydra makes the run folder) and again in
:func:`agenttune.pipelines.run_job` (jobs composed in-process).
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any

from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import InterpolationResolutionError


class ConfigValueError(ValueError):
    """A config value out of its range, or a key given twice on the command line."""


Check = Callable[[Any], bool]


def positive(value: Any) -> bool:
    return value > 0


def non_negative(value: Any) -> bool:
    return value >= 0


def fraction(value: Any) -> bool:
    return 0 <= value <= 1


def probability(value: Any) -> bool:
    return 0 < value <= 1


def one_of(*names: str) -> Check:
    def check(value: Any) -> bool:
        return value in names

    check.__doc__ = f"one of {', '.join(names)}"
    return check


DESCRIPTIONS = {positive: "> 0", non_negative: ">= 0", fraction: "in [0, 1]", probability: "in (0, 1]"}

ALGORITHM_RULES: dict[str, Check] = {
    "learning_rate": non_negative,
    "max_steps": positive,
    "per_device_batch_size": positive,
    "gradient_accumulation_steps": positive,
    "logging_steps": positive,
    "save_steps": positive,
    "save_total_limit": positive,  # or null: keep every checkpoint
    "warmup_ratio": fraction,
    "num_generations": positive,
    "max_length": positive,
    "max_prompt_length": positive,
    "max_completion_length": positive,
    "beta": non_negative,
}
RULES: dict[str, Check] = {
    "seed": non_negative,
    "model.dtype": one_of("float32", "bfloat16", "float16"),
    "model.compute_dtype": one_of("bfloat16", "float16"),  # or null: no autocast
    "model.quantization": one_of("none", "nf4"),
    "model.engine": one_of("transformers", "vllm", "openai", "scripted"),
    "model.max_new_tokens": positive,
    "model.max_concurrent": positive,  # or null: every request at once
    "model.temperature": non_negative,
    "model.eval_temperature": non_negative,
    "model.top_p": probability,
    "model.lora.r": positive,
    "strategy.max_turns": positive,
    "harness.max_steps": positive,
    "harness.top_k": positive,
    "harness.tool_timeout_s": positive,
    "benchmark.num_train": non_negative,  # 0: every task
    "benchmark.num_eval": non_negative,
    "benchmark.trials": positive,
    "benchmark.teacher_min_f1": fraction,
    "retrieval.k": positive,
    "warm_start.num_questions": positive,
    "logger.train_episodes": non_negative,
    **{f"algorithm.{key}": check for key, check in ALGORITHM_RULES.items()},
    **{f"warm_start.algorithm.{key}": check for key, check in ALGORITHM_RULES.items()},
}
FOLDER_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.,=+-]*")


def describe(check: Check) -> str:
    return DESCRIPTIONS.get(check) or check.__doc__ or "in range"


def check_values(cfg: DictConfig) -> None:
    """Raise :class:`ConfigValueError` for the first value of :data:`RULES` out of range (absent keys and nulls are
    skipped), extractive answers asked of an engine that cannot apply them, or a path-forming value (``task_name``,
    tau2 domains) that is not one folder name."""
    for key, check in RULES.items():
        try:
            value = OmegaConf.select(cfg, key, default=None)
        except InterpolationResolutionError as error:  # ${unset:...}: a value the command line has to give
            raise ConfigValueError(f"{key}: {str(error).splitlines()[0]}") from None
        if value is None or isinstance(value, bool):
            continue
        if (isinstance(value, float) and math.isnan(value)) or not check(value):
            raise ConfigValueError(f"{key}={value!r} is out of range: it must be {describe(check)}")
    engine = OmegaConf.select(cfg, "model.engine", default="transformers")
    if OmegaConf.select(cfg, "model.extractive_answers", default=False) and engine != "transformers":
        raise ConfigValueError(
            f"model.extractive_answers=true constrains decoding in the transformers engine; model.engine={engine} "
            "cannot apply it"
        )
    names = {
        "task_name": cfg["task_name"],
        "benchmark.domain": OmegaConf.select(cfg, "benchmark.domain", default=""),
    }
    names |= {
        f"benchmark.domains[{i}]": d for i, d in enumerate(OmegaConf.select(cfg, "benchmark.domains") or [])
    }
    for key, name in names.items():
        if name != "" or key == "task_name":
            check_folder_name(key, name)


def check_folder_name(key: str, name: Any) -> None:
    """Raise :class:`ConfigValueError` unless ``name`` is one safe folder name: a value that forms a path under the
    run folder (``task_name``: ``outputs/<task_name>/``; a domain: ``eventlogs/collect_<domain>_<agent>.jsonl``)."""
    if not FOLDER_NAME.fullmatch(str(name)):
        raise ConfigValueError(
            f"{key}={name!r} must be one folder name (letters, digits and _ . , = + -, not starting with a dot): "
            "it forms a path under outputs/ and may not lead outside it"
        )


def check_overrides(overrides: Iterable[str]) -> None:
    """Raise :class:`ConfigValueError` when the command line gives one key or group more than once."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    given: dict[str, list[str]] = defaultdict(list)
    for override in OverridesParser.create().parse_overrides(list(overrides)):
        given[override.key_or_group].append(override.input_line)
    for key, lines in given.items():
        if len(lines) > 1:
            raise ConfigValueError(
                f"{key} is given {len(lines)} times on the command line ({' '.join(lines)}); Hydra would keep the "
                "last one silently: give it once"
            )


def check_config(cfg: DictConfig, overrides: Iterable[str] = ()) -> None:
    """:func:`check_overrides` then :func:`check_values`."""
    check_overrides(overrides)
    check_values(cfg)
