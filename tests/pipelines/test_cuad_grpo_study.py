"""The GRPO study (conf/experiment/cuad_grpo_study.yaml) at minimal sizes on the tiny model: the cached warm start
shared by two seeds, three-point evaluation with the reward, the per-step curves and the LR selection rule."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from agenttune.benchmarks.base import load_benchmark
from agenttune.config import repo_root
from agenttune.tracking.curves import CURVES, resumed_records, resumed_series
from tests.conftest import compose_config

SCRIPT = f"{repo_root()}/scripts/grpo_study.py"


def tiny_study(cache) -> list[str]:
    return [
        "+experiment=cuad_grpo_study",
        "model=tiny_random",
        "algorithm.learning_rate=1e-5",
        "benchmark.num_train=2",
        "benchmark.num_eval=2",
        "benchmark.max_docs=4",
        "warm_start.num_questions=6",
        "warm_start.algorithm.max_steps=1",
        "algorithm.max_steps=2",
        "algorithm.per_device_batch_size=2",
        "algorithm.num_generations=2",
        "model.max_new_tokens=8",
        f"paths.cache_dir={cache}",  # a fresh warm-start cache (the index over 4 contracts builds in a second)
    ]


@pytest.mark.slow  # about 110 s on 2 shared cores: two jobs of warm start, 3 evaluations and 2 GRPO steps
def test_study_shares_one_warm_start_and_logs_the_curves(run_pipeline, tmp_path):
    cache = tmp_path / "cache"
    first_dir, first = run_pipeline(tiny_study(cache), name="seed0")
    assert first["status"] == "completed", first["error"]
    metrics = first["metrics"]
    for phase in ("eval_before", "eval_warm", "eval_after"):
        assert metrics[f"{phase}/reward/n"] == 2 and f"{phase}/hit@8/ci_low" in metrics
    assert "delta_rl/reward/ci_high" in metrics and "delta_rl/hit@8/n" in metrics
    student = metrics["distill/cached_from"]  # trained by the first job, stored in the cache
    assert metrics["distill/teacher_episodes"] == 6
    assert (cache / "warm_start").exists() and student.startswith(str(cache / "warm_start"))
    assert json.loads((tmp_path / student / "recipe.json").read_text())["warm_start"]["num_questions"] == 6
    assert metrics["train/global_step"] == 2

    second_dir, second = run_pipeline([*tiny_study(cache), "seed=1"], name="seed1")
    assert second["status"] == "completed", second["error"]
    # the second seed loaded the same student: no teacher, no SFT, but its own three points
    assert second["metrics"]["distill/cached_from"] == student
    assert "distill/teacher_episodes" not in second["metrics"] and "delta_rl/reward" in second["metrics"]

    shown = subprocess.run(
        [sys.executable, SCRIPT, "curves", str(tmp_path)], capture_output=True, text=True, check=True
    ).stdout
    assert (tmp_path / "curves.png").stat().st_size > 0
    curves = json.loads((tmp_path / "curves.json").read_text())
    assert len(curves) == 2  # one line per job
    for series in curves.values():
        assert set(series) == set(CURVES)
        for metric in ("train/reward", "train/reward_std", "train/kl", "train/entropy", "train/loss"):
            assert [step for step, _ in series[metric]] == [1, 2], metric
        assert series["train/episodes/tool_calls"]  # the rollouts' own metric
    assert "over seeds" in shown and "delta_rl/reward" in shown

    split = subprocess.run(
        [sys.executable, SCRIPT, "signal", str(tmp_path)], capture_output=True, text=True, check=True
    ).stdout
    assert (
        split.count("(2 steps)") == 2
        and "evidence" in split
        and "first search query as in eval_warm" in split
    )


@pytest.mark.slow  # builds the CUAD questions twice: 17-60 s on 2 shared cores
def test_eval_offset_takes_later_validation_questions_on_other_contracts():
    def eval_tasks(*overrides):
        cfg = compose_config(["+experiment=cuad_grpo_study", "algorithm.learning_rate=1e-5", *overrides])
        return load_benchmark(cfg).tasks("eval")

    first = eval_tasks("benchmark.num_eval=40")
    held_out = {doc for task in first[:8] for doc in task.doc_ids}
    expected = [task.id for task in first[8:] if held_out.isdisjoint(task.doc_ids)][:3]
    assert len(expected) == 3  # the first 40 hold 3 on other contracts (else the test proves nothing)
    assert [t.id for t in eval_tasks("benchmark.num_eval=3", "benchmark.eval_offset=8")] == expected
    with pytest.raises(ValueError, match="eval_offset=8 leaves"):
        eval_tasks("benchmark.num_eval=5000", "benchmark.eval_offset=8")


def test_select_picks_the_lowest_rate_within_tolerance_of_the_best(tmp_path):
    for job, (rate, delta) in enumerate(
        [("1e-06", 0.020), ("5e-06", 0.045), ("2e-05", 0.050), ("5e-05", None)]
    ):
        folder = tmp_path / str(job)
        (folder / ".hydra").mkdir(parents=True)
        (folder / ".hydra" / "overrides.yaml").write_text(f"- algorithm.learning_rate={rate}\n")
        metrics = {} if delta is None else {"delta_rl/reward": delta}  # a job that failed before eval_after
        (folder / "summary.json").write_text(json.dumps({"status": "completed", "metrics": metrics}))

    def pick(*options):
        command = [sys.executable, SCRIPT, "select", str(tmp_path), *options]
        return subprocess.run(command, capture_output=True, text=True, check=True).stdout.strip()

    assert pick() == "5e-06"  # 0.045 is within 0.01 of the best 0.050, and the smaller step
    assert pick("--tolerance", "0.001") == "2e-05"


def test_a_resumed_run_curves_start_with_the_killed_runs_steps(tmp_path):
    def logged(folder, steps):
        folder.mkdir()
        lines = [json.dumps({"step": s, "time": 1.0, "train/reward": s / 10}) for s in steps]
        (folder / "metrics.jsonl").write_text("\n".join([*lines, '{"step": 9, "train/rew']))  # cut short

    logged(tmp_path / "killed", [1, 2, 3])  # killed after step 3, its newest checkpoint at step 2
    logged(tmp_path / "resumed", [3, 4])
    series = resumed_series(tmp_path / "resumed", str(tmp_path / "killed" / "checkpoints" / "checkpoint-2"))
    assert series["train/reward"] == [(1, 0.1), (2, 0.2), (3, 0.3), (4, 0.4)]
    assert series["train/kl"] == []


def test_keep_copies_completed_jobs_records_and_joins_a_resumed_run(tmp_path):
    from agenttune.tracking.jobs import load_jobs

    def job(name, steps, status="completed", metrics=None):
        folder = tmp_path / "study" / name
        (folder / ".hydra").mkdir(parents=True)
        (folder / ".hydra" / "overrides.yaml").write_text(f"- seed={name[0]}\n")
        (folder / ".hydra" / "config.yaml").write_text("seed: 0\n")
        (folder / "task_scores.json").write_text(json.dumps({"eval_after": {"t1": {"reward": 0.5}}}))
        summary = {"status": status, "metrics": {"delta_rl/reward": 0.1, **(metrics or {})}}
        (folder / "summary.json").write_text(json.dumps(summary))
        lines = [json.dumps({"step": s, "train/reward": s / 10}) for s in steps]
        # an evaluation's record, as Run.log writes it: "step": null
        evaluation = json.dumps({"step": None, f"eval_{name}/reward": 0.5})
        (folder / "metrics.jsonl").write_text("\n".join([evaluation, *lines]) + "\n")
        return folder

    killed = job("1_killed", [1, 2, 3], status="failed")
    job("0_done", [1, 2])
    resumed = job(
        "1_resumed", [3, 4], metrics={"train/resumed_from": str(killed / "checkpoints" / "checkpoint-2")}
    )
    records = tmp_path / "records"
    subprocess.run([sys.executable, SCRIPT, "keep", str(tmp_path / "study"), str(records)], check=True)

    assert sorted(p.name for p in records.iterdir()) == ["0_done", "1_resumed"]  # not the failed run
    kept = {row.job: row for row in load_jobs(records)}
    original = {row.job: row for row in load_jobs(tmp_path / "study")}
    assert kept["0_done"] == original["0_done"]  # lossless
    assert kept["1_resumed"].task_scores == original["1_resumed"].task_scores
    assert "train/resumed_from" not in kept["1_resumed"].metrics
    whole = resumed_series(resumed, str(killed / "checkpoints" / "checkpoint-2"))
    assert resumed_series(records / "1_resumed", None) == whole
    assert [step for step, _ in whole["train/reward"]] == [1, 2, 3, 4]
    evaluations = [r for r in resumed_records(records / "1_resumed", None) if r["step"] is None]
    assert [next(iter(set(r) - {"step"})) for r in evaluations] == [
        "eval_1_killed/reward",
        "eval_1_resumed/reward",
    ]


def test_the_warm_start_cache_key_ignores_seed_and_scheduling_but_not_the_recipe():
    from agenttune.pipelines.warm_start import cache_folder

    def folder(*overrides):
        return cache_folder(
            compose_config(["+experiment=cuad_grpo_study", "algorithm.learning_rate=1e-6", *overrides])
        )

    same = {
        folder(),
        folder("seed=2"),
        folder("model.max_concurrent=4"),
        folder("algorithm.learning_rate=5e-6"),
    }
    assert len(same) == 1
    assert folder("warm_start.num_questions=7") not in same and folder("model.max_new_tokens=9") not in same


def test_the_study_stops_before_it_starts_without_a_learning_rate():
    from agenttune.config_checks import ConfigValueError, check_config

    with pytest.raises(
        ConfigValueError, match=r"algorithm.learning_rate: .*not set: give algorithm.learning_rate="
    ):
        check_config(compose_config(["+experiment=cuad_grpo_study"]))
    check_config(compose_config(["+experiment=cuad_grpo_study", "algorithm.learning_rate=5e-6"]))
