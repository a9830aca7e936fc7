"""Two runs compared task by task (agenttune.tracking.compare, scripts/compare_runs.py): B minus A on the shared
tasks, with a paired interval, and clear errors for a folder or phase that is not there."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from agenttune.config import repo_root
from agenttune.tracking.compare import compare_runs


def write_run(folder, phase, scores):
    folder.mkdir()
    (folder / "task_scores.json").write_text(json.dumps({phase: scores}))
    return folder


@pytest.fixture
def runs(tmp_path):
    a_scores = {f"t{i}": {"f1": 0.2, "em": 0.0} for i in range(12)}
    # B is better on every task A evaluated; t99 is B's alone and is not paired
    b_scores = {f"t{i}": {"f1": 0.5 + 0.01 * i, "em": 0.0} for i in range(12)} | {
        "t99": {"f1": 0.0, "em": 0.0}
    }
    # a metric of some tasks only (span metrics skip queries without gold spans): paired on t0 alone
    a_scores["t0"]["recall"] = a_scores["t1"]["recall"] = 0.5
    b_scores["t0"]["recall"] = 1.0
    return write_run(tmp_path / "a", "eval_after", a_scores), write_run(tmp_path / "b", "eval_warm", b_scores)


def test_b_minus_a_is_paired_on_the_shared_tasks_with_an_interval_above_zero(runs):
    rows = compare_runs(*runs, "eval_after", "eval_warm")
    f1 = rows["f1"]
    assert f1["n"] == 12 and f1["a"] == pytest.approx(0.2) and f1["b"] == pytest.approx(0.555)
    assert f1["b_minus_a"] == pytest.approx(0.355) and 0 < f1["ci_low"] < 0.355 < f1["ci_high"]
    assert (rows["recall"]["n"], rows["recall"]["a"], rows["recall"]["b"]) == (1, 0.5, 1.0)
    assert rows["em"]["b_minus_a"] == 0 and (rows["em"]["ci_low"], rows["em"]["ci_high"]) == (0, 0)
    reverse = compare_runs(runs[1], runs[0], "eval_warm", "eval_after")
    assert reverse["f1"]["b_minus_a"] == pytest.approx(-0.355) and reverse["f1"]["ci_high"] < 0


def test_a_missing_phase_or_folder_is_named(runs, tmp_path):
    with pytest.raises(ValueError, match="no phase 'eval_before'.*eval_after"):
        compare_runs(*runs, "eval_before", "eval_warm")
    with pytest.raises(FileNotFoundError, match="nowhere"):
        compare_runs(tmp_path / "nowhere", runs[1], "eval_after", "eval_warm")
    other = write_run(tmp_path / "c", "eval_warm", {"elsewhere": {"f1": 1.0}})
    with pytest.raises(ValueError, match="share no task"):
        compare_runs(runs[0], other, "eval_after", "eval_warm")


def test_the_script_prints_the_table_and_writes_json(runs, tmp_path):
    out = tmp_path / "comparison.json"
    command = [
        sys.executable,
        "scripts/compare_runs.py",
        *map(str, runs),
        "--phase-b",
        "eval_warm",
        "--out",
        str(out),
    ]
    done = subprocess.run(command, cwd=repo_root(), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "| f1 | 0.200 | 0.555 | +0.355 [" in done.stdout
    assert json.loads(out.read_text())["metrics"]["f1"]["n"] == 12
    done = subprocess.run(command[:4], cwd=repo_root(), capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "no phase 'eval_after'" in done.stderr
