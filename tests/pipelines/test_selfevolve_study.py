"""scripts/selfevolve_study.sh runs the self-evolution study on a BFCL category or a tau2 domain unattended
(student, then the method over seeds, then the report), gives METHOD_ARGS to the method's jobs alone and, run
again, skips every job an earlier run completed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip(
    "bfcl_eval", reason="needs the bfcl-eval package, which `make setup` installs (--no-deps)"
)

ROOT = Path(__file__).resolve().parents[2]
TINY = [
    "model=tiny_random",
    "benchmark.num_train=2",
    "benchmark.num_eval=1",
    "algorithm.max_steps=1",
    "algorithm.save_steps=1",
    "harness.max_steps=2",
    "strategy.max_turns=4",
    "model.max_new_tokens=8",
    "logger=none",
]


@pytest.mark.slow
@pytest.mark.parametrize(("benchmark", "domain"), [("bfcl", "multi_turn_base"), ("tau2", "retail")])
def test_the_study_runs_and_a_second_run_skips_what_completed(benchmark, domain):
    task = f"selfevolve_study_test_{os.getpid()}"
    env = {
        **os.environ,
        "BENCHMARK": benchmark,
        "DOMAIN": domain,
        "TASK": task,
        "SEEDS": "0",
        "PYTHON": sys.executable,
        "METHOD_ARGS": "harness.toolgraph.candidate_scoring=false algorithm.learning_rate=5e-5",
    }
    study = ROOT / "outputs" / task / domain
    try:
        for _ in range(2):
            done = subprocess.run(
                ["scripts/selfevolve_study.sh", *TINY], cwd=ROOT, env=env, capture_output=True, text=True
            )
            assert done.returncode == 0, done.stderr[-3000:]
        second = done.stdout + done.stderr
        assert second.count("already completed this config: nothing to do") == 2  # the student and the seed
        assert (study / "seeds" / "report.md").exists()
        first_attempt = sorted((study / "seeds").glob("0_*/summary.json"))[0]
        # METHOD_ARGS reach the method's jobs and not the student's
        (student,) = (study / "student").glob("*/checkpoints/final")  # trained once
        student_overrides = (student.parents[1] / ".hydra" / "overrides.yaml").read_text()
        method_overrides = (first_attempt.parent / ".hydra" / "overrides.yaml").read_text()
        for key in ("harness.toolgraph.candidate_scoring=", "algorithm.learning_rate="):
            assert key in method_overrides and key not in student_overrides
        summary = json.loads(first_attempt.read_text())["metrics"]
        # the student's own episodes are collected beside the scripted agents' (one per train task by default)
        assert summary[f"collect/{domain}/policy_episodes"] == 2
        assert summary[f"collect/{domain}/episodes"] == 2 + 2 * 5  # oracle and 4 perturbed oracles
        # scores per task, where the report over seeds resamples tasks as well as seeds
        by_task = json.loads(first_attempt.with_name("task_scores.json").read_text())
        assert len(by_task["eval/baseline"]) == 1 and len(by_task[f"eval/toolgraph_dpo/{domain}/delta"]) == 1
        # the report's numbers, DPO's own change over ToolGraph among them
        numbers = json.loads((study / "seeds" / "report.json").read_text())
        (job,) = numbers["jobs"].values()
        assert job[f"eval/toolgraph_dpo/{domain}/minus_toolgraph/avg_reward"]["n"] == 1
    finally:
        subprocess.run(["rm", "-rf", str(ROOT / "outputs" / task)])
