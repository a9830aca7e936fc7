"""wandb gets the trajectories: the run's eventlogs/ as one ``eventlog`` artifact with its counts, each evaluation
phase and a sample of each training step as a ``wandb.Table``; read back from the offline run file. ``logger=none``
builds nothing; a tracker that cannot start leaves a failed summary.json naming the fix."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest

from agenttune.config import repo_root
from agenttune.events import load_jsonl
from agenttune.events.schema import ErrorPayload, Event, replace
from agenttune.tracking.episode_table import episode_row, episode_rows
from tests.conftest import compose_config
from tests.events.builders import search_episode

ARITHMETIC = [
    f"hydra.searchpath=[file://{Path(repo_root()) / 'examples' / 'conf'}]",
    "benchmark=arithmetic",
    "model=tiny_random",
    "model.max_new_tokens=8",
    "strategy.max_turns=2",
]
RL = [
    "pipeline=rl", *ARITHMETIC, "benchmark.num_train=2", "benchmark.num_eval=3", "algorithm=grpo",
    "algorithm.max_steps=2", "algorithm.beta=0", "algorithm.num_generations=2", "algorithm.per_device_batch_size=1",
]  # fmt: skip
COLUMNS = ("task_id", "split", "reward", "turns", "tool_calls", "errors", "ended_because", "transcript")
BLOCK = 32768  # the .wandb file is a LevelDB-style log: 32 KiB blocks of (crc32, length, type) framed chunks


def wandb_records(path: Path):
    """Every record of an offline run file, as wandb's own protobuf ``Record`` (wandb 0.31 ships no reader)."""
    from wandb.proto import wandb_internal_pb2

    data = path.read_bytes()
    assert data[:4] == b":W&B", f"{path} is not a wandb run file"
    position, chunks = 7, []  # header: ":W&B", magic 0xBEE1, version
    while position + 7 <= len(data):
        if BLOCK - position % BLOCK < 7:  # a block's tail too short for a chunk header is padding
            position += BLOCK - position % BLOCK
            continue
        _, length, kind = struct.unpack("<IHB", data[position : position + 7])
        chunks.append(data[position + 7 : position + 7 + length])
        position += 7 + length
        if kind in (1, 4):  # a full record, or the last chunk of one
            record = wandb_internal_pb2.Record()
            record.ParseFromString(b"".join(chunks))
            chunks = []
            yield record


def run_file(run_dir: Path) -> Path:
    """The run's offline wandb file, once wandb's service has written all of it (it does so after ``finish``
    returns)."""
    import wandb

    wandb.teardown()
    (path,) = run_dir.glob("wandb/offline-run-*/run-*.wandb")
    return path


def history(run_dir: Path) -> list[dict]:
    """The history rows of the run's offline wandb run, nested keys joined with ``.``."""
    return [
        {".".join(item.nested_key or [item.key]): json.loads(item.value_json) for item in record.history.item}
        for record in wandb_records(run_file(run_dir))
        if record.WhichOneof("record_type") == "history"
    ]


def offline_run(run_dir: Path):
    """(artifacts by type, tables by key: each a list of (its stage's step or the history step, rows, table file
    json)) of the run's offline wandb run."""
    path = run_file(run_dir)
    artifacts, tables = {}, {}
    for record in wandb_records(path):
        kind = record.WhichOneof("record_type")
        if kind == "artifact":
            artifacts.setdefault(record.artifact.type, []).append(record.artifact)
        if kind != "history":
            continue
        items = {
            tuple(item.nested_key or [item.key]): json.loads(item.value_json) for item in record.history.item
        }
        for (key, *field), value in items.items():
            if field == ["path"] and items.get((key, "_type")) == "table-file":
                table = json.loads((path.parent / "files" / value).read_text())
                step = items.get((key.split("/")[0] + "/step",), items[("_step",)])
                tables.setdefault(key, []).append((step, items[(key, "nrows")], table))
    return artifacts, tables


def test_a_run_sends_its_eventlogs_as_one_artifact_and_a_phase_as_one_table(tmp_path):
    from agenttune.events import write_jsonl
    from agenttune.tracking.run import RunContext
    from tests.test_tracking import make_cfg

    logs = [search_episode(log_id=f"ep{i}", reward=i / 4) for i in range(3)]
    with RunContext(make_cfg(tmp_path, "wandb"), tmp_path) as run:
        write_jsonl(logs, run.eventlog_dir / "eval.jsonl")
        write_jsonl(logs[:1], run.eventlog_dir / "train" / "step-0.jsonl")
        run.log_episodes("eval/trajectories", logs, "eval", [{"exact_match": 1.0}] * 3)
        run.log({"eval/exact_match": 1.0})
    artifacts, tables = offline_run(tmp_path)
    (artifact,) = artifacts["eventlog"]
    assert json.loads(artifact.metadata) == {
        "episodes": 4,
        "events": 4 * len(logs[0].events),
        "files": {
            "eval.jsonl": {"episodes": 3, "events": 3 * len(logs[0].events)},
            "train/step-0.jsonl": {"episodes": 1, "events": len(logs[0].events)},
        },
    }
    assert sorted(entry.path for entry in artifact.manifest.contents) == ["eval.jsonl", "train/step-0.jsonl"]
    ((_, nrows, table),) = tables["eval/trajectories"]
    assert nrows == len(table["data"]) == 3
    rows = [dict(zip(table["columns"], row, strict=True)) for row in table["data"]]
    assert [row["reward"] for row in rows] == [0.0, 0.25, 0.5]
    assert {row["score/exact_match"] for row in rows} == {1.0}


def test_each_training_stage_is_plotted_against_its_own_step_and_no_row_is_dropped(tmp_path):
    from agenttune.tracking.run import RunContext
    from tests.test_tracking import make_cfg

    with RunContext(make_cfg(tmp_path, "wandb"), tmp_path) as run:  # the rl pipeline's order of logging
        run.log({"eval_before/reward": 0.2})
        for step in (1, 2, 3):
            run.log({"distill/loss": 1.0 / step}, step=step)
        run.log({"eval_warm/reward": 0.4})
        for step in (1, 2):  # a new stage starts at step 1, below wandb's own step (5)
            run.log({"train/reward": step / 4, "train/loss": -step / 8}, step=step)
    rows = history(tmp_path)
    assert [(row["distill/step"], row["distill/loss"]) for row in rows if "distill/loss" in row] == [
        (1, 1.0),
        (2, 0.5),
        (3, 1 / 3),
    ]
    assert [(row["train/step"], row["train/reward"]) for row in rows if "train/reward" in row] == [
        (1, 0.25),
        (2, 0.5),
    ]
    assert [row["eval_warm/reward"] for row in rows if "eval_warm/reward" in row] == [0.4]


@pytest.mark.slow
def test_an_rl_run_sends_its_eventlogs_and_episode_tables_to_wandb(tmp_path):
    from agenttune.pipelines import run_job

    run_dir = tmp_path / "run"
    run_job(compose_config([*RL, "logger=wandb", "logger.train_episodes=1"], run_dir))
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["status"] == "completed", summary["error"]
    artifacts, tables = offline_run(run_dir)

    (artifact,) = artifacts["eventlog"]
    files = sorted(
        p.relative_to(run_dir / "eventlogs").as_posix() for p in run_dir.glob("eventlogs/**/*.jsonl")
    )
    logs = [log for name in files for log in load_jsonl(run_dir / "eventlogs" / name)]
    metadata = json.loads(artifact.metadata)
    # eval before and after, two steps of 2 rollouts
    assert metadata["episodes"] == len(logs) == 3 + 3 + 2 * 2
    assert metadata["events"] == sum(len(log.events) for log in logs)
    assert sorted(entry.path for entry in artifact.manifest.contents) == files

    for phase in ("eval_before", "eval_after"):
        ((_, nrows, table),) = tables[f"{phase}/trajectories"]
        assert nrows == len(table["data"]) == 3
        columns = table["columns"]
        assert set(COLUMNS) <= set(columns)
        rows = [dict(zip(columns, row, strict=True)) for row in table["data"]]
        assert {row["split"] for row in rows} == {"eval"}
        assert all(row["transcript"].startswith("system: ") for row in rows)
    train = tables["train/trajectories"]
    assert [(step, nrows) for step, nrows, _ in train] == [(1, 1), (2, 1)]  # one sampled rollout per step
    first = dict(zip(train[0][2]["columns"], train[0][2]["data"][0], strict=True))
    assert first["policy_step"] == 0 and first["split"] == "train"
    assert first["reward"] is not None and any(key.startswith("reward/") for key in first)


def test_logger_none_builds_no_table_reads_no_eventlog_and_writes_no_wandb_folder(tmp_path, monkeypatch):
    import agenttune.events.io as events_io
    import agenttune.tracking.episode_table as episode_table
    from agenttune.events import write_jsonl
    from agenttune.tracking.run import RunContext
    from tests.test_tracking import make_cfg

    def refuse(*args, **kwargs):
        raise AssertionError("logger=none must neither build episode rows nor read EventLogs")

    monkeypatch.setattr(episode_table, "episode_rows", refuse)
    monkeypatch.setattr(events_io, "read_jsonl", refuse)
    with RunContext(make_cfg(tmp_path, "none"), tmp_path) as run:
        write_jsonl([search_episode()], run.eventlog_dir / "eval.jsonl")
        run.log_episodes("eval/trajectories", [search_episode()], "eval")
    assert json.loads((tmp_path / "summary.json").read_text())["status"] == "completed"
    assert not (tmp_path / "wandb").exists()


def test_an_episode_row_holds_rewards_scores_counts_and_the_transcript():
    log = search_episode(reward=0.75)
    error = Event(payload=ErrorPayload(source="parser", message="bad <tool_call>"), actor="system", step=1)
    log = replace(log, events=[*log.events, error], metadata={"turns": 2, "termination": "agent_stop"})
    row = episode_row(log, "eval", {"exact_match": 1.0})
    assert row["task_id"] == "q1" and row["split"] == "eval"
    assert row["reward"] == 0.75 and row["reward/answer"] == 0.75 and row["score/exact_match"] == 1.0
    assert (row["turns"], row["tool_calls"], row["errors"], row["ended_because"]) == (2, 1, 1, "agent_stop")
    transcript = row["transcript"]
    assert transcript.index("user: Which state's law governs?") < transcript.index(
        '-> search({"query": "governing law"})'
    )
    assert "tool search: laws of Nevada" in transcript and transcript.endswith(
        "error (parser): bad <tool_call>"
    )
    columns, rows = episode_rows([log, search_episode()], "eval", [{"exact_match": 1.0}, {}])
    assert len(rows) == 2 and rows[1][columns.index("score/exact_match")] is None


def test_a_tracker_that_cannot_start_leaves_a_failed_summary_naming_the_fix(tmp_path, monkeypatch):
    import wandb

    from agenttune.tracking.loggers import TrackerError
    from agenttune.tracking.run import RunContext
    from tests.test_tracking import make_cfg

    def no_credentials(**kwargs):
        raise wandb.errors.UsageError("api_key not configured (no-tty). call wandb.login(key=[your_api_key])")

    monkeypatch.setattr(wandb, "init", no_credentials)
    with pytest.raises(
        TrackerError, match=r"logger=wandb .*api_key not configured.*WANDB_MODE=offline.*logger=none"
    ):
        with RunContext(make_cfg(tmp_path, "wandb"), tmp_path):
            pass
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["status"] == "failed" and "wandb login" in summary["error"]
    with RunContext(make_cfg(tmp_path, "none"), tmp_path):  # the folder's lock was released
        pass
