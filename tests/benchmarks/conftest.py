"""Fixtures for the retrieval and CUAD tests: a few real CUAD contracts and a throwaway cache folder."""

from __future__ import annotations

import pytest

from agenttune.benchmarks.cuad.data import load_contracts


@pytest.fixture(scope="session")
def contracts():
    """The first four CUAD contracts (the data folder must exist: see agenttune.benchmarks.cuad.data)."""
    return load_contracts()[:4]


@pytest.fixture
def tmp_cache(tmp_path):
    """An empty index cache folder for one test."""
    return tmp_path / "cache"
