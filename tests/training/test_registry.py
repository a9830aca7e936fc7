"""The algorithm registry: each module declares its algorithm, each YAML uses that algorithm's schema, and
importing the training package does not import TRL."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from agenttune.config import AlgorithmConfig, repo_root
from agenttune.training import algorithm_config, algorithm_info, algorithms

ALGORITHM_YAML = Path(repo_root()) / "conf" / "algorithm"


def test_every_algorithm_has_a_yaml_and_every_yaml_an_algorithm():
    assert sorted(algorithms()) == sorted(path.stem for path in ALGORITHM_YAML.glob("*.yaml"))
    assert list(algorithms())[:3] == ["grpo", "rloo", "ppo"]


@pytest.mark.parametrize("name", list(algorithms()))
def test_each_yaml_lists_its_algorithm_schema(name):
    config = yaml.safe_load((ALGORITHM_YAML / f"{name}.yaml").read_text())
    assert config["defaults"][0] == f"{name}_schema"
    assert config["name"] == name


@pytest.mark.parametrize("name", list(algorithms()))
def test_each_schema_adds_only_its_own_fields_to_the_shared_ones(name):
    schema = algorithm_info(name).config
    shared = {field.name for field in dataclasses.fields(AlgorithmConfig)}
    own = {field.name for field in dataclasses.fields(schema)} - shared
    assert issubclass(schema, AlgorithmConfig)
    assert own, f"{name} has no field of its own"
    assert not own & {"trl", "name"}


def test_on_policy_algorithms_and_their_data():
    on_policy = {name for name, algorithm in algorithms().items() if algorithm.on_policy}
    assert on_policy == {"grpo", "rloo", "ppo"}
    data = {name: algorithm.data for name, algorithm in algorithms().items()}
    assert data == {
        "grpo": "prompts",
        "rloo": "prompts",
        "ppo": None,
        "dpo": "preferences",
        "bco": "preferences",
        "kto": "unpaired",
        "sft": "sft",
    }


def test_algorithm_config_picks_the_schema_by_name():
    config = algorithm_config({"name": "dpo", "beta": 0.3, "trl": {"label_smoothing": 0.1}})
    assert (type(config).__name__, config.beta, config.trl) == (
        "DPOAlgorithmConfig",
        0.3,
        {"label_smoothing": 0.1},
    )
    with pytest.raises(Exception, match="num_generations"):
        algorithm_config({"name": "dpo", "num_generations": 2})


def test_an_unknown_algorithm_names_the_known_ones():
    with pytest.raises(ValueError, match="'reinforce'.*grpo"):
        algorithm_info("reinforce")


def test_importing_the_training_package_and_every_algorithm_does_not_import_trl():
    code = (
        "import sys; from agenttune.training import algorithms; algorithms(); "
        "from agenttune.config_store import register_configs; register_configs(); print('trl' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"
