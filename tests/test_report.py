"""The sweep report: jobs named by their overrides, intervals in cells and as error bars, constant columns listed
once, metrics.jsonl as a second source, missing metrics named, and jobs differing only by seed grouped."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agenttune.stats import seed_task_interval
from agenttune.tracking.report import write_report


def write_job(folder, overrides, metrics, task_scores=None, logged=()):
    (folder / ".hydra").mkdir(parents=True)
    (folder / ".hydra" / "overrides.yaml").write_text("".join(f"- {o}\n" for o in overrides))
    (folder / "summary.json").write_text(json.dumps({"status": "completed", "metrics": metrics}))
    if task_scores is not None:
        (folder / "task_scores.json").write_text(json.dumps(task_scores))
    (folder / "metrics.jsonl").write_text("".join(json.dumps(record) + "\n" for record in logged))


def test_jobs_are_named_by_their_overrides_with_intervals_and_constant_columns_listed_once(tmp_path, caplog):
    for job, model in enumerate(["tiny_random", "smollm2_135m"]):
        metrics = {"eval/em": 0.5, "eval/em/n": 8, "eval/em/ci_low": 0.25, "eval/em/ci_high": 0.75}
        metrics |= {"eval/f1": 0.1 * (job + 1), "train/global_step": 2}
        logged = [{"step": 1, "train/grad_norm": 3.0}, {"step": 2, "train/grad_norm": 1.0 + job}]
        write_job(tmp_path / str(job), ["+experiment=smoke", f"model={model}"], metrics, logged=logged)
    md_path, html_path = write_report(tmp_path, ["eval/f1", "eval/em", "train/grad_norm", "train/grad_nrm"])
    lines = md_path.read_text().splitlines()
    assert lines[2] == "| job | overrides | status | eval/f1 | train/grad_norm |"
    assert lines[4] == "| 0 | model=tiny_random | completed | 0.1 | 1 |"  # grad_norm: its last logged value
    assert lines[5] == "| 1 | model=smollm2_135m | completed | 0.2 | 2 |"
    assert "Every row: experiment=smoke" in lines
    assert "Same in every row: eval/em = 0.5 [0.25, 0.75] n=8" in lines
    assert any(
        line.startswith("Not found: train/grad_nrm: in no job's") and "train/grad_norm" in line
        for line in lines
    )
    assert "train/grad_nrm" in caplog.text
    assert "model=smollm2_135m" in html_path.read_text()


def test_one_job_plots_its_intervals_as_error_bars(tmp_path):
    metrics = {"eval_before/em": 0.2, "eval_before/em/ci_low": 0.1, "eval_before/em/ci_high": 0.3}
    write_job(tmp_path / "0", ["+experiment=cuad_grpo"], metrics)
    md_path, _ = write_report(tmp_path)
    assert "| 0 | experiment=cuad_grpo | completed | 0.2 [0.1, 0.3] |" in md_path.read_text()
    assert (tmp_path / "plot_eval_before_em.png").stat().st_size > 1000


def test_jobs_differing_only_by_seed_are_one_row_with_an_interval_over_seeds_and_tasks(tmp_path):
    rng = np.random.default_rng(0)
    matrices = {}
    for job in range(6):
        lr, seed = ["1e-05", "2e-05"][job // 3], job % 3
        tasks = {f"q{t}": {"em": float(rng.random() < 0.3 + 0.3 * (job // 3))} for t in range(10)}
        tasks["extra"] = {"em": 1.0} if seed == 0 else {}  # a task only one seed has: left out of the matrix
        em = float(np.mean([s["em"] for s in tasks.values() if "em" in s]))
        matrices.setdefault(lr, []).append([tasks[f"q{t}"]["em"] for t in range(10)])
        write_job(
            tmp_path / str(job),
            ["+experiment=smoke", f"algorithm.learning_rate={lr}", f"seed={seed}"],
            {"eval/em": em, "eval/em/n": 10, "train/loss/final": 1.0 + seed},
            task_scores={"eval": tasks},
        )
    md_path, _ = write_report(tmp_path, seed=0)
    lines = md_path.read_text().splitlines()
    assert lines[0].endswith("across seeds")
    for line, lr in zip(lines[4:6], ["1e-05", "2e-05"], strict=True):
        matrix = np.array(matrices[lr])
        low, high = seed_task_interval(matrix, seed=0)
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert cells[:3] == [
            "0,1,2" if lr == "1e-05" else "3,4,5",
            f"algorithm.learning_rate={lr}",
            "completed",
        ]
        assert cells[3] == f"{matrix.mean():.4g} [{low:.4g}, {high:.4g}] n=10, 3 seeds"
    assert "Every row: experiment=smoke, seed=0,1,2" in lines
    # no per-task scores: the mean and interval over seeds alone (the same for both rows, so listed once)
    assert "Same in every row: train/loss/final = 2 [1, 3] 3 seeds" in lines
    assert (
        "# Jobs" in lines
        and "| 4 | algorithm.learning_rate=2e-05, seed=1 | completed |" in md_path.read_text()
    )
    assert (tmp_path / "plot_algorithm.learning_rate_eval_em.png").exists()
    # report.json: the same numbers, per job and per seed group, for a page to link to
    numbers = json.loads((tmp_path / "report.json").read_text())
    low, high = seed_task_interval(np.array(matrices["2e-05"]), seed=0)
    assert numbers["over_seeds"]["algorithm.learning_rate=2e-05, seed=0,1,2"]["eval/em"] == pytest.approx(
        {"value": np.mean(matrices["2e-05"]), "ci_low": low, "ci_high": high, "n": 10, "seeds": 3}
    )
    assert numbers["jobs"]["4"]["eval/em"] == {
        "value": json.loads((tmp_path / "4" / "summary.json").read_text())["metrics"]["eval/em"],
        "n": 10,
    }


def test_a_job_run_at_the_default_seed_joins_the_seeds_swept_beside_it(tmp_path):
    for seed in range(3):
        tasks = {f"q{t}": {"em": float((t + seed) % 3 == 0)} for t in range(6)}
        write_job(
            tmp_path / f"seed{seed}",
            ["+experiment=smoke", *([f"seed={seed}"] if seed else [])],  # seed 0: the config's default
            {"eval/em": float(np.mean([s["em"] for s in tasks.values()]))},
            task_scores={"eval": tasks, "eval/delta": tasks},  # eval/delta: per task only, not in the summary
        )
        (tmp_path / f"seed{seed}" / ".hydra" / "config.yaml").write_text(f"seed: {seed}\n")
    write_report(tmp_path, ["eval/em", "eval/delta/em"])
    numbers = json.loads((tmp_path / "report.json").read_text())
    assert list(numbers["over_seeds"]) == ["seed=0,1,2"]
    over_seeds = numbers["over_seeds"]["seed=0,1,2"]
    assert over_seeds["eval/em"]["seeds"] == 3 and over_seeds["eval/delta/em"]["n"] == 6
    assert over_seeds["eval/delta/em"]["value"] == pytest.approx(over_seeds["eval/em"]["value"])


def test_a_resumed_seed_groups_with_the_others_and_a_seed_from_its_own_student_only_when_asked(tmp_path):
    # seed 2 starts from a second training of the student and continued a killed job
    students = {0: "student_a", 1: "student_a", 2: "student_b"}
    for seed, student in students.items():
        write_job(
            tmp_path / f"seed{seed}",
            [f"init_from={student}", f"seed={seed}", *(["resume=true"] if seed == 2 else [])],
            {"eval/em": 0.1 * seed},
        )
    write_report(tmp_path, ["eval/em"])  # another student is another experiment unless said otherwise
    assert list(json.loads((tmp_path / "report.json").read_text())["over_seeds"]) == [
        "init_from=student_a, seed=0,1",
        "init_from=student_b, resume=true, seed=2",
    ]
    write_report(tmp_path, ["eval/em"], seeds_vary=["init_from"])
    over_seeds = json.loads((tmp_path / "report.json").read_text())["over_seeds"]
    assert list(over_seeds) == ["seed=0,1,2"]
    assert (
        over_seeds["seed=0,1,2"]["eval/em"]["value"] == pytest.approx(0.1)
        and over_seeds["seed=0,1,2"]["eval/em"]["seeds"] == 3
    )
    assert "init_from=student_a,student_b" in (tmp_path / "report.md").read_text()  # each student named once


def test_merged_seeds_plot_under_their_seeds_though_the_mean_rounds_above_its_interval(tmp_path, monkeypatch):
    from matplotlib.axes import Axes

    labels = []
    set_yticks = Axes.set_yticks
    monkeypatch.setattr(
        Axes, "set_yticks", lambda axis, ticks, names: labels.extend(names) or set_yticks(axis, ticks, names)
    )
    # the mean of 2 seeds x 128 scores of 0.2 is 0.20000000000000004, above its interval [0.2, 0.2]
    for seed in range(2):
        tasks = {f"q{t}": {"reward": 0.2} for t in range(128)}
        metrics = {
            "eval/reward": 0.2,
            "eval/reward/n": 128,
            "eval/reward/ci_low": 0.2,
            "eval/reward/ci_high": 0.2,
        }
        write_job(tmp_path / str(seed), [f"seed={seed}"], metrics, task_scores={"eval": tasks})
    md_path, _ = write_report(tmp_path, ["eval/reward"])
    assert "![plot_eval_reward](plot_eval_reward.png)" in md_path.read_text()
    assert labels == ["seed=0,1"]  # the merged row named by its seeds, not by its joined job folders


def test_report_of_a_folder_without_jobs_says_so(tmp_path):
    with pytest.raises(FileNotFoundError, match="No job folder with a summary.json"):
        write_report(tmp_path)


def test_a_metrics_line_cut_short_by_a_killed_run_is_skipped(tmp_path):
    logged = [{"step": 1, "train/loss": 2.0}]
    write_job(tmp_path / "0", ["seed=0"], {"eval/em": 0.5}, logged=logged)
    with (tmp_path / "0" / "metrics.jsonl").open("a") as handle:
        handle.write('{"step": 2, "train/lo')
    md_path, _ = write_report(tmp_path, ["train/loss"])
    assert "| 0 | seed=0 | completed | 2 |" in md_path.read_text()
