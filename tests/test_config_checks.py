"""Config values are range-checked before a job writes anything, each error naming the key; a key given twice on
the command line is refused; ``task_name`` cannot lead outside ``outputs/``."""

from __future__ import annotations

import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from agenttune.config import repo_root
from agenttune.config_checks import ConfigValueError, check_config, check_overrides
from tests.conftest import EXPERIMENT_COMMAND_LINE, compose_config

SMOKE = ["+experiment=smoke", "model=tiny_random"]


@pytest.mark.parametrize(
    ("override", "key"),
    [
        ("algorithm.per_device_batch_size=0", "algorithm.per_device_batch_size"),
        ("algorithm.max_steps=0", "algorithm.max_steps"),
        ("algorithm.learning_rate=-1", "algorithm.learning_rate"),
        ("algorithm.gradient_accumulation_steps=-2", "algorithm.gradient_accumulation_steps"),
        ("algorithm.warmup_ratio=1.5", "algorithm.warmup_ratio"),
        ("algorithm.save_steps=0", "algorithm.save_steps"),
        ("model.dtype=float8", "model.dtype"),
        ("model.top_p=0", "model.top_p"),
        ("model.max_new_tokens=0", "model.max_new_tokens"),
        ("strategy.max_turns=0", "strategy.max_turns"),
        ("benchmark.num_eval=-1", "benchmark.num_eval"),
        ("benchmark.teacher_min_f1=1.5", "benchmark.teacher_min_f1"),
        ("task_name=../../x", "task_name"),
        ("task_name=a/b", "task_name"),
        ("task_name=..", "task_name"),
        ("benchmark.domain=../up", "benchmark.domain"),
        ("benchmark.domains=[retail,../../up]", r"benchmark.domains\[1\]"),
    ],
)
def test_a_value_out_of_range_is_refused_naming_the_key(override, key):
    cfg = compose_config([*SMOKE, override])
    with pytest.raises(ConfigValueError, match=rf"^{key}="):
        check_config(cfg)


def test_extractive_answers_need_the_transformers_engine():
    cfg = compose_config([*SMOKE, "model.extractive_answers=true", "model.engine=vllm"])
    with pytest.raises(ConfigValueError, match="model.extractive_answers=true .* model.engine=vllm"):
        check_config(cfg)
    check_config(compose_config([*SMOKE, "model.extractive_answers=true"]))


def test_an_appended_algorithm_field_is_range_checked_too():
    cfg = compose_config([*SMOKE, "algorithm=grpo", "algorithm.num_generations=0"])
    with pytest.raises(ConfigValueError, match="algorithm.num_generations=0"):
        check_config(cfg)


@pytest.mark.parametrize(
    "experiment", sorted(p.stem for p in (Path(repo_root()) / "conf" / "experiment").glob("*.yaml"))
)
def test_every_experiment_passes_the_checks(experiment):
    check_config(compose_config([f"+experiment={experiment}", *EXPERIMENT_COMMAND_LINE.get(experiment, [])]))


@pytest.mark.parametrize(
    "overrides",
    [
        ["algorithm=dpo", "algorithm=kto"],
        ["algorithm.learning_rate=1e-5", "algorithm.learning_rate=2e-5"],
        ["+experiment=smoke", "+experiment=cuad_grpo"],
    ],
)
def test_a_key_given_twice_is_refused(overrides):
    with pytest.raises(ConfigValueError, match="given 2 times on the command line"):
        check_overrides(overrides)


def test_distinct_keys_and_sweeps_pass():
    check_overrides(
        ["algorithm=dpo", "algorithm.learning_rate=1e-5", "algorithm.beta=0.1,0.2", "+experiment=smoke"]
    )


def test_the_command_line_prints_one_line_and_writes_nothing():
    escape = f"agenttune-escape-{uuid.uuid4().hex[:8]}"
    result = subprocess.run(
        [sys.executable, "train.py", *SMOKE, "logger=none", f"task_name=../../{escape}", "algorithm=dpo"],
        cwd=repo_root(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [
        f"error: task_name='../../{escape}' must be one folder name (letters, digits and _ . , = + -, not starting "
        "with a dot): it forms a path under outputs/ and may not lead outside it"
    ]
    assert not (Path(repo_root()) / "outputs" / ".." / ".." / escape).exists()
    twice = subprocess.run(
        [sys.executable, "train.py", *SMOKE, "logger=none", "algorithm=dpo", "algorithm=kto"],
        cwd=repo_root(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert twice.returncode == 1
    assert twice.stderr.strip().splitlines() == [
        "error: algorithm is given 2 times on the command line (algorithm=dpo algorithm=kto); Hydra would keep the "
        "last one silently: give it once"
    ]
