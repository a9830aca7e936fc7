"""Every pipeline that runs episodes writes each one the moment it ends: SIGKILL it mid-phase, every finished
episode is on disk and loads, and nothing else is.

The child (:mod:`stalling_benchmark`) runs ``train.py`` on a benchmark whose ``STALL_AT``-th harness step blocks
for good; the episodes the loop had closed by then are named in ``finished``. Each case stalls in a phase that
used to be written only once all its episodes had ended (``teacher``, ``collect_*``, the rollouts of a training
step).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agenttune.config import repo_root
from agenttune.events import read_jsonl

CHILD = Path(__file__).with_name("stalling_benchmark.py")
TINY = ["benchmark.name=stalling", "model=tiny_random", "model.max_new_tokens=8", "strategy.max_turns=2"]
CASES = {
    # pipeline: (stall at harness step, overrides, the phase file it stalls in)
    "evaluate": (3, ["pipeline=evaluate", "benchmark.num_eval=4", "harness.agent=oracle"], "eval.jsonl"),
    "distill": (
        4,
        ["pipeline=distill", "algorithm=sft", "benchmark.num_eval=1", "benchmark.num_train=3"],
        "teacher.jsonl",
    ),
    "rl": (
        3,
        [
            "pipeline=rl",
            "algorithm=grpo",
            "algorithm.max_steps=1",
            "algorithm.num_generations=2",
            "algorithm.per_device_batch_size=2",
            "benchmark.num_eval=1",
            "benchmark.num_train=2",
        ],
        "train/step-0.jsonl",
    ),  # fmt: skip
    "self_evolve": (
        6,  # the policy's 3 episodes take a step each, the oracle's 2: stalls in the oracle's second episode
        ["pipeline=self_evolve", "algorithm=dpo", "benchmark.num_train=3"],
        "collect_calc_oracle.jsonl",
    ),
    # the current policy's episodes on the train tasks, which self-healing reads its failures from
    "self_heal": (3, ["pipeline=self_heal", "algorithm=sft", "benchmark.num_train=4"], "observed.jsonl"),
}


def run_until_stalled(tmp_path: Path, stall_at: int, overrides: list[str]) -> Path:
    """Start the child, wait until it stalls, SIGKILL it; return its run folder."""
    run_dir = tmp_path / "run"
    args = [*TINY, *overrides, "logger=none", f"hydra.run.dir={run_dir}"]
    child = subprocess.Popen(
        [sys.executable, str(CHILD), str(tmp_path), str(stall_at), *args],
        cwd=repo_root(),
        stdout=subprocess.DEVNULL,
        stderr=open(tmp_path / "stderr", "wb"),  # noqa: SIM115 - the child holds it
    )
    try:
        deadline = time.time() + 300
        while not (tmp_path / "stalled").exists():
            assert child.poll() is None, (tmp_path / "stderr").read_text()[-3000:]
            assert time.time() < deadline, "the pipeline never reached its stalling step"
            time.sleep(0.1)
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
    return run_dir


# Each case is a train.py job (about 8 s of CPU for evaluate here); the default run keeps evaluate, whose
# writer path (stages.episodes) distill, self_evolve and tau2 share.
SLOW = {"distill", "rl", "self_evolve", "self_heal"}


@pytest.mark.parametrize(
    "pipeline", [pytest.param(p, marks=pytest.mark.slow) if p in SLOW else p for p in CASES]
)
def test_a_killed_pipeline_keeps_every_finished_episode(pipeline, tmp_path):
    stall_at, overrides, stalled_in = CASES[pipeline]
    run_dir = run_until_stalled(tmp_path, stall_at, overrides)
    finished = (tmp_path / "finished").read_text().split()
    on_disk = {}
    for path in sorted((run_dir / "eventlogs").rglob("*.jsonl")):
        contents = read_jsonl(path)  # strict: a corrupt line raises
        assert not contents.issues, contents.issues
        on_disk |= {log.id: log for log in contents.logs}
    assert finished, "the child stalled before any episode ended"
    assert sorted(on_disk) == sorted(finished)
    assert all(log.events for log in on_disk.values())
    assert read_jsonl(run_dir / "eventlogs" / stalled_in).logs, (
        f"{stalled_in} has none of its finished episodes"
    )
