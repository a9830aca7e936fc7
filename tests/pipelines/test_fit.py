"""Components that cannot work together are refused before a job starts, in one line naming what would work."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from omegaconf import OmegaConf

from agenttune.config import repo_root
from agenttune.pipelines import run_job
from agenttune.pipelines.fit import MisfitError, check_fit
from tests.conftest import compose_config

CONF = Path(repo_root()) / "conf"


def misfit(overrides: list[str]) -> str:
    cfg = compose_config(overrides)
    with pytest.raises(MisfitError) as error:
        check_fit(cfg, overrides)
    assert "\n" not in str(error.value)
    return str(error.value)


def test_a_benchmark_without_a_train_split_is_refused_by_rl():
    message = misfit(["+experiment=cuad_grpo", "benchmark=legalbench_rag"])
    assert message.startswith("benchmark=legalbench_rag does not fit pipeline=rl: it has no train split")
    takers = message.split("pipeline=rl takes ")[1].split(";")[0].split(", ")
    assert {"cuad_search", "tau2_airline"} <= set(takers) and "legalbench_rag" not in takers
    assert message.endswith("legalbench_rag fits pipeline=evaluate")


def test_a_benchmark_without_recorded_trajectories_is_refused_by_train_on_logs():
    message = misfit(["+experiment=smoke", "benchmark=cuad_search"])
    assert "no recorded trajectories to train on" in message
    assert "pipeline=train_on_logs takes adp_samples" in message


def test_the_warm_start_needs_a_teacher_only_when_it_runs():
    message = misfit(["+experiment=cuad_grpo", "benchmark=adp_samples"])
    assert "no scripted agent" in message and "no train split" not in message
    overrides = ["+experiment=cuad_grpo", "benchmark=adp_samples", "warm_start.enabled=false"]
    check_fit(compose_config(overrides), overrides)


def test_a_strategy_is_refused_where_no_episode_is_played():
    message = misfit(["+experiment=smoke", "strategy=reflexion"])
    assert message.startswith("strategy=reflexion is ignored: pipeline=train_on_logs with algorithm=sft")
    overrides = [
        "+experiment=smoke",
        "algorithm=grpo",
        "strategy=reflexion",
    ]  # sampled: the strategy shapes it
    check_fit(compose_config(overrides), overrides)


def test_a_retrieval_backend_is_refused_where_nothing_is_searched():
    message = misfit(["+experiment=tau2_oracle", "retrieval.k=4"])
    assert message.startswith("retrieval.k=4 is ignored: benchmark=tau2_airline")
    assert message.endswith("(cuad_search, legalbench_rag)")
    overrides = ["+experiment=cuad_grpo", "retrieval=hybrid"]
    check_fit(compose_config(overrides), overrides)


@pytest.mark.parametrize(
    "overrides",
    [[f"+experiment={path.stem}"] for path in sorted((CONF / "experiment").glob("*.yaml"))]
    + [[f"+sweep={path.stem}"] for path in sorted((CONF / "sweep").glob("*.yaml"))],
    ids=lambda overrides: overrides[0],
)
def test_every_shipped_experiment_and_sweep_fits(overrides):
    cfg = compose_config(overrides)
    if OmegaConf.is_missing(cfg, "pipeline"):  # a sweep over any experiment (seeds): on the smoke experiment
        overrides = ["+experiment=smoke", *overrides]
        cfg = compose_config(overrides)
    check_fit(cfg, overrides)


def test_no_job_chosen_says_what_to_run():
    with pytest.raises(MisfitError, match=r"no job chosen: try `python train.py \+experiment=smoke"):
        run_job(compose_config([]))


def test_the_command_line_prints_one_line_and_exits_nonzero():
    done = subprocess.run(
        [sys.executable, "train.py", "+experiment=smoke", "benchmark=cuad_search"],
        cwd=repo_root(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("error: benchmark=cuad_search does not fit pipeline=train_on_logs")
