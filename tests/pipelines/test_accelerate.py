"""Training across processes with accelerate: two CPU processes (gloo) train one DDP run; only the main process
writes the run folder, and the trained model loads."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agenttune.config import repo_root


@pytest.mark.slow
def test_two_processes_train_one_dpo_run(tmp_path):
    root = Path(repo_root())
    env = {**os.environ, "WANDB_MODE": "offline", "HF_HUB_OFFLINE": "1", "TMPDIR": str(tmp_path)}
    launch = [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2"]
    launch += ["--num_machines", "1", "--mixed_precision", "no", "--dynamo_backend", "no"]
    job = ["train.py", "+experiment=smoke", "algorithm=dpo", "model=tiny_random", "task_name=ddp_smoke"]
    job += [f"hydra.run.dir=${{rank_zero_dir:{tmp_path}/run}}", "logger=none"]  # as conf/hydra/default.yaml
    subprocess.run([*launch, *job], cwd=root, env=env, check=True, timeout=1800)

    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["status"] == "completed" and summary["hardware"]["processes"] == 2
    first_step = json.loads((tmp_path / "run" / "metrics.jsonl").read_text().splitlines()[0])
    # the smoke data's 10 DPO pairs are 3 steps of 2 ranks x 2 pairs (5 steps in one process)
    assert first_step["train/epoch"] == pytest.approx(1 / 3)
    assert not list(tmp_path.glob("agenttune-rank1/*")), "rank 1 left files behind"
    from transformers import AutoModelForCausalLM

    AutoModelForCausalLM.from_pretrained(tmp_path / "run" / "checkpoints" / "final")
