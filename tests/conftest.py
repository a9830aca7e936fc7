"""Shared fixtures: the cache folder, the embedded tokenizer (with the tool-calling template) and a tiny model."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agenttune.config import ModelConfig, repo_root

os.environ.setdefault("WANDB_MODE", "offline")
os.environ.setdefault("HF_HUB_OFFLINE", "1")


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
