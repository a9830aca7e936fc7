"""scripts/phase_scores.py scores a phase of a run from its EventLog as the run's benchmark scores it, and records
its scores per task where compare_runs pairs them; for a self_evolve run, its variants as the pipeline records them."""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import pytest
from omegaconf import OmegaConf

from agenttune.benchmarks.base import load_benchmark
from agenttune.config import repo_root
from agenttune.events.io import write_jsonl
from agenttune.stages.phases import scored_episodes
from agenttune.tracking.compare import compare_runs
from tests.conftest import compose_config

pytest.importorskip(
    "bfcl_eval", reason="needs the bfcl-eval package, which `make setup` installs (--no-deps)"
)

spec = importlib.util.spec_from_file_location(
    "phase_scores", Path(repo_root()) / "scripts" / "phase_scores.py"
)
phase_scores = importlib.util.module_from_spec(spec)
spec.loader.exec_module(phase_scores)


def test_a_phase_is_scored_from_its_eventlog_with_intervals(tmp_path):
    cfg = compose_config(["+experiment=tau2_oracle", "benchmark=bfcl_multi_turn"], tmp_path)
    benchmark = load_benchmark(cfg)
    tasks = benchmark.tasks("eval", limit=3)
    (tmp_path / ".hydra").mkdir()
    OmegaConf.save(cfg, tmp_path / ".hydra" / "config.yaml")
    for agent in ("oracle", "wrong_argument"):
        logs, _ = scored_episodes(cfg, benchmark, benchmark.scripted_agent(agent), tasks)
        write_jsonl(logs, tmp_path / "eventlogs" / f"eval_{agent}.jsonl")
    oracle = phase_scores.phase_scores(tmp_path, "eval_oracle")
    assert oracle["avg_reward"] == oracle["turn_accuracy"] == 1.0 and oracle["avg_reward/n"] == 3
    wrong = phase_scores.phase_scores(tmp_path, "eval_wrong_argument")
    assert wrong["turn_accuracy"] < 1.0 and wrong["turn_accuracy/ci_low"] <= wrong["turn_accuracy"]

    phases = ["eval_oracle", "eval_wrong_argument"]
    phase_scores.add_task_scores(tmp_path, {p: phase_scores.scores_by_task(tmp_path, p) for p in phases})
    rows = compare_runs(tmp_path, tmp_path, "eval_oracle", "eval_wrong_argument")
    assert rows["turn_accuracy"]["n"] == 3
    assert math.isclose(rows["turn_accuracy"]["b_minus_a"], wrong["turn_accuracy"] - 1.0)


def test_a_self_evolve_runs_variants_are_recorded_per_task_as_the_pipeline_records_them(tmp_path):
    cfg = compose_config(["+experiment=bfcl_toolgraph_dpo"], tmp_path)
    benchmark = load_benchmark(cfg)
    tasks = benchmark.tasks("eval", limit=3)
    (tmp_path / ".hydra").mkdir()
    OmegaConf.save(cfg, tmp_path / ".hydra" / "config.yaml")
    played = {"baseline": "wrong_argument", "toolgraph": "oracle", "toolgraph_dpo": "wrong_argument"}
    for variant, agent in played.items():
        logs, _ = scored_episodes(cfg, benchmark, benchmark.scripted_agent(agent), tasks)
        write_jsonl(logs, tmp_path / "eventlogs" / f"eval_{variant}.jsonl")
    (tmp_path / "task_scores.json").write_text('{"collect": {}}')  # a phase recorded before: kept

    metrics = phase_scores.record_variants(tmp_path)

    recorded = json.loads((tmp_path / "task_scores.json").read_text())
    (domain,) = benchmark.domains
    assert {"collect", "eval/baseline", f"eval/toolgraph/{domain}/delta"} <= set(recorded)
    improved = recorded[f"eval/toolgraph/{domain}/delta"]
    assert len(improved) == 3 and all(score["turn_accuracy"] > 0 for score in improved.values())
    assert all(
        score["turn_accuracy"] == 0 for score in recorded[f"eval/toolgraph_dpo/{domain}/delta"].values()
    )
    assert metrics[f"eval/toolgraph/{domain}/delta/turn_accuracy"] > 0
