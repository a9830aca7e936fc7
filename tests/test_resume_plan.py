"""What resume=true continues from, worked out from the earlier run folders alone (no training)."""

from __future__ import annotations

import json

import pytest
from omegaconf import OmegaConf

from agenttune.benchmarks.base import Benchmark
from agenttune.events import load_jsonl, write_jsonl
from agenttune.events.schema import EventLog
from agenttune.stages.phases import reused_episodes
from agenttune.tracking.resume import ResumePlan, plan_resume, recorded_episodes
from agenttune.tracking.run import RunContext
from tests.conftest import compose_config

SMOKE = ["+experiment=smoke", "model=tiny_random", "algorithm=sft", "algorithm.max_steps=2"]


def earlier_run(folder, overrides, status=None, steps=(1, 2)):
    """A run folder as a finished (``status``) or killed (None) run leaves it, with complete checkpoints."""
    cfg = compose_config([*SMOKE, *overrides], folder)
    (folder / ".hydra").mkdir(parents=True)
    OmegaConf.save(
        OmegaConf.masked_copy(cfg, [k for k in cfg if k != "hydra"]), folder / ".hydra" / "config.yaml"
    )
    for step in steps:
        checkpoint = folder / "checkpoints" / f"checkpoint-{step}"
        checkpoint.mkdir(parents=True)
        (checkpoint / "trainer_state.json").write_text(json.dumps({"global_step": step}))
    if status:
        (folder / "summary.json").write_text(json.dumps({"status": status}))
    return folder


def plan(tmp_path, overrides):
    return plan_resume(compose_config([*SMOKE, *overrides, "resume=true"]), tmp_path / "now")


def test_a_completed_run_leaves_nothing_to_do(tmp_path):
    done = earlier_run(tmp_path / "1", [], status="completed")
    result = plan(tmp_path, [])
    assert result.completed_run == done and result.checkpoint is None
    assert result.message == f"{done} already completed this config: nothing to do"


def test_how_often_a_run_saved_and_logged_does_not_make_it_another_run(tmp_path):
    done = earlier_run(
        tmp_path / "1", ["algorithm.save_steps=4", "algorithm.logging_steps=4"], status="completed"
    )
    assert plan(tmp_path, ["algorithm.save_steps=1", "algorithm.logging_steps=1"]).completed_run == done
    killed = earlier_run(
        tmp_path / "2", ["algorithm.learning_rate=0.5", "algorithm.save_steps=4"], steps=(1,)
    )
    result = plan(tmp_path, ["algorithm.learning_rate=0.5", "algorithm.save_steps=1"])
    assert result.checkpoint == str(killed / "checkpoints" / "checkpoint-1") and result.killed_run == killed


def test_a_killed_run_continues_from_its_newest_complete_checkpoint(tmp_path):
    earlier_run(tmp_path / "1", [], status="completed")
    killed = earlier_run(tmp_path / "2", [], steps=(1,))
    assert plan(tmp_path, []).checkpoint == str(killed / "checkpoints" / "checkpoint-1")


def test_a_larger_max_steps_continues_and_names_the_key(tmp_path):
    done = earlier_run(tmp_path / "1", [], status="completed")
    result = plan(tmp_path, ["algorithm.max_steps=5"])
    assert result.checkpoint == str(done / "checkpoints" / "checkpoint-2") and result.completed_run is None
    assert result.message.endswith("with algorithm.max_steps (2 -> 5)")


def test_any_other_change_names_the_keys_and_starts_fresh(tmp_path):
    earlier_run(tmp_path / "1", [], status="completed")
    newest = earlier_run(tmp_path / "2", ["algorithm.learning_rate=0.5"])
    for overrides in (
        ["algorithm.learning_rate=0.001"],
        ["algorithm.max_steps=1"],
    ):  # a smaller max_steps too
        result = plan(tmp_path, overrides)
        assert result.checkpoint is None and result.completed_run is None
        assert result.message.startswith(f"the newest earlier run {newest} differs in ")
        assert result.message.endswith(": starting fresh")
    assert (
        "algorithm.learning_rate (0.5 -> 0.001)" in plan(tmp_path, ["algorithm.learning_rate=0.001"]).message
    )


def test_a_killed_run_without_a_checkpoint_is_named_for_its_recorded_evaluations(tmp_path):
    earlier_run(tmp_path / "1", ["algorithm.learning_rate=3e-4"], steps=())
    killed = earlier_run(tmp_path / "2", [], steps=())
    result = plan(tmp_path, [])
    assert result.checkpoint is None and result.killed_run == killed
    assert plan(tmp_path, ["algorithm.learning_rate=3e-4"]).killed_run == tmp_path / "1"
    assert plan(tmp_path, ["algorithm.learning_rate=1e-3"]).killed_run is None


def test_the_runs_that_differ_in_the_seed_alone_are_named_seed_siblings_newest_first(tmp_path):
    older = earlier_run(tmp_path / "1", ["seed=1"], status="completed")
    earlier_run(tmp_path / "2", ["seed=1", "algorithm.learning_rate=3e-4"])
    newer = earlier_run(tmp_path / "3", ["seed=2"], steps=())
    same = earlier_run(tmp_path / "4", [], steps=())
    result = plan(tmp_path, [])
    assert result.seed_siblings == (newer, older) and result.killed_run == same
    assert plan(tmp_path, ["seed=1"]).completed_run == older


def episode(task, number):
    return EventLog(id=f"{task}-{number}", task_id=task)


def test_recorded_episodes_come_back_in_task_order_with_a_gap_for_each_one_not_finished(tmp_path):
    path = tmp_path / "eventlogs" / "eval_before.jsonl"
    write_jsonl(
        [episode("b", 0), episode("a", 0), episode("b", 1)], path
    )  # as episodes end, not in task order

    def ids(task_ids):
        return [log and log.id for log in recorded_episodes(tmp_path, "eval_before", task_ids)]

    assert ids(["a", "b", "b"]) == ["a-0", "b-0", "b-1"]  # a task played twice takes two
    assert ids(["a", "b", "b", "c"]) == ["a-0", "b-0", "b-1", None]  # killed before c ended
    assert ids(["c", "b", "b", "b"]) == [None, "b-0", "b-1", None]  # b's third trial never ended
    assert recorded_episodes(tmp_path, "eval_warm", ["a"]) is None  # never reached
    # keyed as the benchmark keys them: tau2's task ids repeat across domains
    write_jsonl(
        [EventLog(id="r5", task_id="5", metadata={"domain": "retail"})], tmp_path / "eventlogs" / "p.jsonl"
    )
    by_domain = recorded_episodes(
        tmp_path, "p", ["airline/5", "retail/5"], key=lambda log: f"{log.metadata['domain']}/{log.task_id}"
    )
    assert [log and log.id for log in by_domain] == [None, "r5"]
    with path.open("ab") as handle:  # a kill mid-write leaves a torn line, which is no episode
        handle.write(b'{"id": "c-0", "task_')
    with pytest.warns(UserWarning, match="torn"):
        assert ids(["b", "a", "c"]) == ["b-0", "a-0", None]


def test_a_seed_free_phase_fills_the_killed_runs_gaps_from_the_other_seeds_runs(tmp_path):
    cfg = compose_config(SMOKE, tmp_path / "now")
    killed, seed_1, seed_2 = tmp_path / "killed", tmp_path / "seed_1", tmp_path / "seed_2"
    write_jsonl([episode("a", 0)], killed / "eventlogs" / "eval_baseline.jsonl")
    write_jsonl([episode("a", 1), episode("b", 1)], seed_1 / "eventlogs" / "eval_baseline.jsonl")
    write_jsonl([episode("b", 2), episode("c", 2)], seed_2 / "eventlogs" / "eval_baseline.jsonl")
    tasks = [{"id": task} for task in "abcd"]

    def reused(across_seeds):
        run = RunContext(cfg, tmp_path / f"now_{across_seeds}")
        run.resume_plan = ResumePlan(None, None, "", killed_run=killed, seed_siblings=(seed_1, seed_2))
        logs = reused_episodes(run, Benchmark(cfg), tasks, "eval_baseline", across_seeds)
        copied = sorted(log.id for log in load_jsonl(run.dir / "eventlogs" / "eval_baseline.jsonl"))
        return [log and log.id for log in logs], copied

    # the killed run's own episode first, then the newest seed's, then the next one's; d was never played
    assert reused(True) == (["a-0", "b-1", "c-2", None], ["a-0", "b-1", "c-2"])
    assert reused(False) == (["a-0", None, None, None], ["a-0"])  # a phase that depends on the seed
