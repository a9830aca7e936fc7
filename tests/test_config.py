"""Config composition: every experiment and sweep composes; typos and wrong types fail at compose time."""

from __future__ import annotations

from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir
from hydra.errors import ConfigCompositionException
from omegaconf import OmegaConf

from agenttune.config import register_configs, repo_root, validate_config
from tests.conftest import compose_config

CONF = Path(repo_root()) / "conf"
EXPERIMENTS = sorted(p.stem for p in (CONF / "experiment").glob("*.yaml"))
SWEEPS = sorted(p.stem for p in (CONF / "sweep").glob("*.yaml"))

register_configs()


def compose_resolved(overrides: list[str]):
    cfg = compose_config(overrides)
    job_cfg = OmegaConf.masked_copy(cfg, [k for k in cfg if k != "hydra"])
    OmegaConf.to_container(job_cfg, resolve=True, throw_on_missing=True)  # every interpolation resolves
    return cfg


def test_default_config_composes_with_typed_groups():
    cfg = compose_resolved([])
    assert cfg.model.path == "embedded:smollm2_135m"
    assert OmegaConf.get_type(cfg.algorithm).__name__ == "AlgorithmConfig"
    assert Path(cfg.paths.root, "train.py").exists()


@pytest.mark.parametrize("name", EXPERIMENTS)
def test_every_experiment_composes(name):
    cfg = compose_resolved([f"+experiment={name}"])
    assert cfg.pipeline


@pytest.mark.parametrize("name", SWEEPS)
def test_every_sweep_composes(name):
    cfg = compose_resolved([f"+sweep={name}"])
    assert cfg.hydra.mode.name == "MULTIRUN"
    assert cfg.hydra.sweeper.params, "a sweep must list its grid"


def test_there_are_experiments_and_sweeps():
    assert {"smoke", "cuad_grpo"} <= set(EXPERIMENTS)
    assert SWEEPS


@pytest.mark.parametrize(
    ("override", "key"),
    [
        ("algorithm.betta=0.1", "betta"),
        ("algorithm.learning_rate=abc", "learning_rate"),
        ("model.lora.r=x", "r"),
    ],
)
def test_bad_override_fails_at_compose_naming_the_key(override, key):
    with pytest.raises(ConfigCompositionException) as error:
        compose_resolved([override])
    message = str(error.value) + str(error.value.__cause__)
    assert key in message


def test_appended_unknown_key_fails_validation_naming_the_key():
    cfg = compose_resolved(["+algorithm.betta=0.1"])
    with pytest.raises(Exception, match="betta"):
        validate_config(cfg)


def test_misspelt_key_in_a_group_file_fails(tmp_path):
    bad = tmp_path / "conf"
    import shutil

    shutil.copytree(CONF, bad)
    (bad / "algorithm" / "typo.yaml").write_text(
        "defaults:\n  - schema\n  - _self_\nname: grpo\nlearnig_rate: 1e-5\n"
    )
    with initialize_config_dir(version_base="1.3", config_dir=str(bad)):
        with pytest.raises(Exception, match="learnig_rate"):
            compose("train", overrides=["algorithm=typo"])
