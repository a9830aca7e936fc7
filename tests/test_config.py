"""Config composition: every experiment and sweep composes; typos and wrong types fail at compose time."""

from __future__ import annotations

from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir
from hydra.errors import ConfigCompositionException
from omegaconf import OmegaConf

from agenttune.config import repo_root
from agenttune.config_store import register_configs, validate_config
from agenttune.training import algorithm_config, algorithm_info, algorithms
from tests.conftest import EXPERIMENT_COMMAND_LINE, compose_config

CONF = Path(repo_root()) / "conf"
EXPERIMENTS = sorted(p.stem for p in (CONF / "experiment").glob("*.yaml"))
SWEEPS = sorted(p.stem for p in (CONF / "sweep").glob("*.yaml"))

register_configs()


def compose_resolved(overrides: list[str]):
    cfg = compose_config(overrides)
    # `pipeline` has no default (every experiment sets it; a bare train.py says what to run)
    job_cfg = OmegaConf.masked_copy(
        cfg, [k for k in cfg if k != "hydra" and not OmegaConf.is_missing(cfg, k)]
    )
    OmegaConf.to_container(job_cfg, resolve=True, throw_on_missing=True)  # every interpolation resolves
    return cfg


def test_default_config_composes_with_typed_groups():
    cfg = compose_resolved([])
    assert cfg.model.path == "embedded:smollm2_135m"
    assert OmegaConf.get_type(cfg.algorithm).__name__ == "GRPOAlgorithmConfig"
    assert Path(cfg.paths.root, "train.py").exists()
    assert OmegaConf.is_missing(cfg, "pipeline")


@pytest.mark.parametrize("name", EXPERIMENTS)
def test_every_experiment_composes(name):
    cfg = compose_resolved([f"+experiment={name}", *EXPERIMENT_COMMAND_LINE.get(name, [])])
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
        "defaults:\n  - grpo_schema\n  - _self_\nname: grpo\nlearnig_rate: 1e-5\n"
    )
    with initialize_config_dir(version_base="1.3", config_dir=str(bad)):
        with pytest.raises(Exception, match="learnig_rate"):
            compose("train", overrides=["algorithm=typo"])


@pytest.mark.parametrize("name", list(algorithms()))
def test_every_algorithm_composes_with_its_own_schema(name):
    cfg = compose_resolved([f"algorithm={name}"])
    assert OmegaConf.get_type(cfg.algorithm) is algorithm_info(name).config
    assert isinstance(algorithm_config(cfg.algorithm), algorithm_info(name).config)
    validate_config(cfg)


@pytest.mark.parametrize(
    ("overrides", "key"),
    [
        (["algorithm=dpo", "algorithm.num_generations=4"], "num_generations"),  # a grpo field
        (["algorithm=sft", "algorithm.vf_coef=0.1"], "vf_coef"),  # a ppo field
        (["algorithm=grpo", "algorithm.preference_loss=ipo"], "preference_loss"),  # a dpo field
        (["algorithm=kto", "algorithm.max_lenght=64"], "max_lenght"),  # misspelt
    ],
)
def test_a_field_of_another_algorithm_fails_at_compose_naming_the_key(overrides, key):
    with pytest.raises(ConfigCompositionException) as error:
        compose_resolved(overrides)
    assert key in str(error.value) + str(error.value.__cause__)


def test_an_algorithm_field_composes_for_its_own_algorithm():
    cfg = compose_resolved(["algorithm=grpo", "algorithm.num_generations=4"])
    assert algorithm_config(cfg.algorithm).num_generations == 4


def test_appended_field_of_another_algorithm_fails_validation_naming_the_key():
    cfg = compose_resolved(["algorithm=dpo", "+algorithm.num_generations=4"])
    with pytest.raises(Exception, match="num_generations"):
        validate_config(cfg)


@pytest.mark.parametrize(
    "overrides",
    [
        ["+algorithm.trl.top_k=20", "+algorithm.trl.mask_truncated_completions=true"],
        ["+algorithm.trl={top_k: 20, mask_truncated_completions: true}"],
    ],
)
def test_trl_pass_through_composes(overrides):
    cfg = compose_resolved(["+experiment=cuad_grpo", *overrides])
    validate_config(cfg)
    trl = algorithm_config(cfg.algorithm).trl
    assert trl == {"activation_checkpointing": False, "top_k": 20, "mask_truncated_completions": True}


def test_warm_start_algorithm_has_the_sft_schema():
    cfg = compose_resolved(["+experiment=cuad_grpo", "warm_start.algorithm.max_length=1024"])
    validate_config(cfg)
    stage = algorithm_config(cfg.warm_start.algorithm)
    assert (type(stage).__name__, stage.max_length) == ("SFTAlgorithmConfig", 1024)
    with pytest.raises(ConfigCompositionException):
        compose_resolved(["+experiment=cuad_grpo", "warm_start.algorithm.num_generations=2"])


def test_the_jobs_seed_reaches_the_trainer_and_the_seeds_sweep_the_warm_start_too():
    cfg = compose_resolved(["+experiment=cuad_grpo", "seed=1"])
    assert algorithm_config(cfg.algorithm).seed == 1
    assert algorithm_config(cfg.warm_start.algorithm).seed == 0  # one warm start shared by the seeds
    cfg = compose_resolved(["+experiment=cuad_grpo", "+sweep=seeds", "seed=2"])
    assert (algorithm_config(cfg.algorithm).seed, algorithm_config(cfg.warm_start.algorithm).seed) == (2, 2)


def test_cuad_distill_trains_the_student_the_main_job_warm_starts_from():
    distill = compose_resolved(["+experiment=cuad_distill"])
    main = compose_resolved(["+experiment=cuad_grpo"])
    assert distill.algorithm == main.warm_start.algorithm
    assert distill.benchmark.num_train == main.warm_start.num_questions
    assert distill.benchmark.num_eval == main.benchmark.num_eval
    for group in ("harness", "strategy", "retrieval"):
        assert distill[group] == main[group], group
    sampling = {"temperature"}  # GRPO's rollouts sample; both evaluate greedily (model.eval_temperature)
    assert {k: v for k, v in distill.model.items() if k not in sampling} == {
        k: v for k, v in main.model.items() if k not in sampling
    }
    transfer = compose_resolved(["+experiment=legalbench_rag_transfer"])
    assert (transfer.harness, transfer.model.eval_temperature) == (main.harness, 0)
