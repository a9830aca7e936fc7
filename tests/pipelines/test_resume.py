"""resume=true continues an interrupted run of the same config from its last checkpoint, at the same step, and
does not play again the episodes it recorded."""

from __future__ import annotations

import shutil

import pytest

from agenttune.events import load_jsonl
from tests.pipelines.test_cuad_grpo import TINY_BUDGET

SMOKE = [
    "+experiment=smoke",
    "model=tiny_random",
    "algorithm=sft",
    "benchmark.num_train=2",
    "algorithm.max_steps=2",
    "algorithm.save_steps=1",
]


def episode_ids(run_dir, phase):
    return sorted(log.id for log in load_jsonl(run_dir / "eventlogs" / f"{phase}.jsonl"))


def test_resume_continues_from_the_last_checkpoint_of_the_same_config(run_pipeline, tmp_path):
    first_dir, first = run_pipeline(SMOKE, name="runs/first")
    assert first["metrics"]["train/global_step"] == 2
    # Leave the first run as a run killed after step 1 would: only checkpoint-1, no summary.
    shutil.rmtree(first_dir / "checkpoints" / "checkpoint-2")
    shutil.rmtree(first_dir / "checkpoints" / "final")
    (first_dir / "summary.json").unlink()

    _, resumed = run_pipeline([*SMOKE, "resume=true"], name="runs/second")
    assert resumed["metrics"]["train/resumed_from"].endswith("checkpoint-1")
    assert resumed["metrics"]["train/global_step"] == 2

    _, other = run_pipeline([*SMOKE, "resume=true", "algorithm.learning_rate=3e-4"], name="runs/third")
    assert other["metrics"]["train/resumed_from"] is None, "a different config never resumes another run"


def test_a_resumed_rl_job_reuses_the_evaluation_episodes_its_killed_run_recorded(run_pipeline, tmp_path):
    overrides = [*TINY_BUDGET, "warm_start.cache=true", f"paths.cache_dir={tmp_path / 'cache'}"]
    first_dir, first = run_pipeline(overrides, name="runs/first")
    # Leave it as a kill in eval_warm's second episode would: eval_before recorded, eval_warm's first episode,
    # nothing after, no summary.
    (first_dir / "summary.json").unlink()
    (first_dir / "eventlogs" / "eval_after.jsonl").unlink()
    warm_log = first_dir / "eventlogs" / "eval_warm.jsonl"
    first_warm_ids = episode_ids(first_dir, "eval_warm")
    warm_log.write_text(warm_log.read_text().splitlines(keepends=True)[0])
    for checkpoint in (first_dir / "checkpoints").iterdir():
        if checkpoint.name != "distill":
            shutil.rmtree(checkpoint)

    second_dir, second = run_pipeline([*overrides, "resume=true"], name="runs/second")
    assert second["status"] == "completed", second["error"]

    # the whole phase taken: the same episodes (ids carry a random suffix), scored the same
    assert episode_ids(second_dir, "eval_before") == episode_ids(first_dir, "eval_before")
    for metric in ("hit@8", "tool_call_rate", "reward", "reward/ci_high"):
        assert second["metrics"][f"eval_before/{metric}"] == first["metrics"][f"eval_before/{metric}"]
    # the phase it was killed in: the episode it finished taken, the other one played
    second_warm_ids = episode_ids(second_dir, "eval_warm")
    assert len(second_warm_ids) == 2 and len(set(second_warm_ids) & set(first_warm_ids)) == 1
    assert second["metrics"]["eval_warm/reward/n"] == 2
    assert (
        len(episode_ids(second_dir, "eval_after")) == 2
    )  # GRPO ran again, and the policy it left was played
    assert second["metrics"]["delta_rl/reward/n"] == 2

    # a run of another config is never a source of episodes
    third_dir, _ = run_pipeline([*overrides, "resume=true", "seed=1"], name="runs/third")
    assert set(episode_ids(third_dir, "eval_before")).isdisjoint(episode_ids(first_dir, "eval_before"))


def test_a_resumed_distill_job_keeps_the_episodes_its_killed_run_finished_before_training(run_pipeline):
    overrides = [
        "+experiment=cuad_distill",
        "model=tiny_random",
        "benchmark.num_train=2",
        "benchmark.num_eval=2",
        "benchmark.max_docs=4",
        "algorithm.max_steps=1",
        "model.max_new_tokens=8",
    ]
    first_dir, _ = run_pipeline(overrides, name="runs/first")
    # Leave it as a kill in eval_before's second episode would: one episode recorded, nothing after.
    before_ids = episode_ids(first_dir, "eval_before")
    (first_dir / "summary.json").unlink()
    shutil.rmtree(first_dir / "checkpoints")
    for phase in (first_dir / "eventlogs").glob("*.jsonl"):
        if phase.stem == "eval_before":
            phase.write_text(phase.read_text().splitlines(keepends=True)[0])
        else:
            phase.unlink()

    second_dir, second = run_pipeline([*overrides, "resume=true"], name="runs/second")
    assert second["status"] == "completed", second["error"]
    resumed_ids = episode_ids(second_dir, "eval_before")
    assert len(resumed_ids) == 2 and len(set(resumed_ids) & set(before_ids)) == 1
    assert second["metrics"]["delta/reward/n"] == 2


# The self-evolution method on two BFCL tasks with a random 2-layer model: every phase, in seconds a phase.
SELF_EVOLVE = [
    "+experiment=bfcl_toolgraph_dpo",
    "model=tiny_random",
    "model.max_new_tokens=8",
    "strategy.max_turns=2",
    "harness.max_steps=1",
    "harness.toolgraph.candidate_scoring=false",
    "benchmark.num_train=2",
    "benchmark.num_eval=2",
    "algorithm.max_steps=2",
    "algorithm.save_steps=1",
    "algorithm.per_device_batch_size=1",
]


@pytest.mark.slow
def test_a_resumed_self_evolve_job_trains_on_its_killed_runs_pairs_and_selects_among_all_checkpoints(
    run_pipeline,
):
    pytest.importorskip("bfcl_eval")
    first_dir, first = run_pipeline(SELF_EVOLVE, name="runs/first")
    assert first["status"] == "completed", first["error"]
    # Leave it as a kill after DPO's first step would: the collection recorded, checkpoint-1, nothing after.
    (first_dir / "summary.json").unlink()
    for later in ("checkpoint-2", "final"):
        shutil.rmtree(first_dir / "checkpoints" / later)
    for phase in (first_dir / "eventlogs").glob("*.jsonl"):
        if not phase.name.startswith("collect_"):
            phase.unlink()

    second_dir, second = run_pipeline([*SELF_EVOLVE, "resume=true"], name="runs/second")
    assert second["status"] == "completed", second["error"]
    collected = sorted(path.stem for path in (first_dir / "eventlogs").glob("collect_*.jsonl"))
    assert len(collected) == 6  # the policy, the oracle and 4 perturbed oracles
    for name in collected:  # the same episodes (ids carry a random suffix), so the same pairs
        assert episode_ids(second_dir, name) == episode_ids(first_dir, name)
    assert second["metrics"]["train/resumed_from"].endswith("checkpoint-1")
    assert sorted(p.name for p in (second_dir / "checkpoints").glob("checkpoint-*")) == [
        "checkpoint-1",
        "checkpoint-2",
    ]
    for checkpoint in ("checkpoint-1", "checkpoint-2"):  # the same weights as the uninterrupted run's
        key = f"select/{checkpoint}/chosen_reward"
        assert second["metrics"][key] == pytest.approx(first["metrics"][key], rel=1e-4)
    assert len(episode_ids(second_dir, "eval_baseline")) == 2  # played: the killed run had not recorded it
