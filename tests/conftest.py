"""Shared fixtures: the cache folder, the embedded tokenizer (with the tool-calling template) and a tiny model."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

from agenttune.config import ModelConfig, repo_root

os.environ.setdefault("WANDB_MODE", "offline")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

# Property tests assert behaviour, not speed: no per-example deadline, which a busy machine would trip.
settings.register_profile("untimed", deadline=None)
settings.load_profile("untimed")


@pytest.fixture(scope="session")
def cache_dir() -> Path:
    """The project's cache (converted embedded model, indexes), shared by all tests."""
    return Path(os.environ.get("AGENTTUNE_CACHE_DIR", Path(repo_root()) / ".cache"))


@pytest.fixture(scope="session")
def data_dir() -> Path:
    path = Path(os.environ.get("AGENTTUNE_DATA_DIR", Path(repo_root()).parent / "shared" / "data"))
    if not path.exists():
        pytest.fail(f"data folder {path} is missing; set AGENTTUNE_DATA_DIR (see README)")
    return path


@pytest.fixture(scope="session")
def tiny_model_config() -> ModelConfig:
    return ModelConfig(name="tiny_random", path="tiny_random", max_new_tokens=16)


@pytest.fixture(scope="session")
def tokenizer(tiny_model_config, cache_dir):
    from agenttune.models import load_tokenizer

    return load_tokenizer(tiny_model_config, cache_dir)


@pytest.fixture
def tiny_model(tiny_model_config, cache_dir):
    """A fresh 2-layer random Llama on the embedded tokenizer (function-scoped: tests may train it)."""
    from agenttune.models import load_model

    return load_model(tiny_model_config, cache_dir)


# What an experiment leaves to the command line (``${unset:...}``): without it the config checks stop the job
EXPERIMENT_COMMAND_LINE = {"cuad_grpo_study": ["algorithm.learning_rate=5e-6"]}


def compose_config(overrides: list[str], output_dir: str | Path = "/tmp/agenttune-compose-test"):
    """Compose conf/train.yaml as ``python train.py OVERRIDES`` would, with the run folder set to ``output_dir``."""
    from agenttune.config_store import compose_config as compose

    return compose(overrides, output_dir)


@pytest.fixture
def run_pipeline(tmp_path):
    """Run ``train.py OVERRIDES`` in-process (logger off) in a fresh run folder; returns (run folder, summary)."""
    import json

    from agenttune.pipelines import run_job

    def run(overrides: list[str], name: str = "run") -> tuple[Path, dict]:
        run_dir = tmp_path / name
        cfg = compose_config([*overrides, "logger=none"], run_dir)
        run_job(cfg)
        return run_dir, json.loads((run_dir / "summary.json").read_text())

    return run
