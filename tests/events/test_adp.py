"""ADP: every sample file converts to EventLogs and back to valid ADP equal to the input; quality reports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from agenttune.events import EventKind
from agenttune.events.adp import TRAJECTORIES, Trajectory, eventlog_to_trajectory, import_adp, normalise
from agenttune.events.adp_quality import check_trajectories
from agenttune.events.io import dumps, loads

SAMPLES = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "adp_samples"
FILES = sorted(SAMPLES.glob("*.json"))


def test_all_sample_files_are_present():
    assert len(FILES) == 25


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_adp_file_round_trips_through_eventlogs(path: Path):
    original = json.loads(path.read_text())
    logs = [loads(dumps(log)) for log in import_adp(path)]  # through the JSONL line format too
    assert all(log.source == f"adp:{path.stem}" for log in logs)
    exported = [eventlog_to_trajectory(log) for log in logs]
    data = TRAJECTORIES.dump_python(exported, mode="json")
    TRAJECTORIES.validate_python(data)
    assert normalise(data) == normalise(original)


def test_import_links_tool_results_and_keeps_thoughts():
    trajectory = Trajectory.model_validate(
        {
            "id": "t",
            "content": [
                {"class_": "text_observation", "content": "fix it", "source": "user"},
                {
                    "class_": "api_action",
                    "function": "run",
                    "kwargs": {"cmd": "ls"},
                    "description": "look first",
                },
                {"class_": "text_observation", "content": "a.py", "source": "environment"},
                {"class_": "code_action", "language": "python", "content": "print(1)", "description": None},
                {"class_": "text_observation", "content": "1", "source": "environment"},
                {"class_": "message_action", "content": "done", "description": None},
            ],
        }
    )
    from agenttune.events.adp import trajectory_to_eventlog

    log = trajectory_to_eventlog(trajectory)
    kinds = [event.kind for event in log.events]
    assert kinds == [
        EventKind.USER,
        EventKind.REASONING,
        EventKind.TOOL_CALL,
        EventKind.TOOL_RESULT,
        EventKind.TOOL_CALL,
        EventKind.TOOL_RESULT,
        EventKind.TEXT,
        EventKind.TURN_COMPLETE,
    ]
    assert log.events[3].payload.call_id == log.events[2].payload.call_id
    assert log.events[4].payload.arguments == {"language": "python", "code": "print(1)"}
    assert log.events[5].payload.call_id == log.events[4].payload.call_id


def test_adp_models_reject_unknown_fields_and_versions():
    with pytest.raises(ValidationError, match="colour"):
        Trajectory.model_validate(
            {"id": "t", "content": [{"class_": "message_action", "content": "x", "colour": 1}]}
        )
    with pytest.raises(ValidationError, match="schema_version"):
        Trajectory.model_validate({"id": "t", "content": [], "schema_version": "2.0"})
    for version in ("1.0", "1.1", "1.2"):
        assert Trajectory.model_validate({"id": "t", "content": [], "schema_version": version})


def test_quality_report_flags_format_thoughts_and_termination():
    good_call = {
        "class_": "api_action",
        "function": "search",
        "kwargs": {"q": "x"},
        "description": "need facts",
    }
    trajectories = TRAJECTORIES.validate_python(
        [
            {"id": "ok", "content": [good_call, {"class_": "message_action", "content": "done"}]},
            {
                "id": "bad",
                "content": [
                    {"class_": "api_action", "function": "do it!", "kwargs": {"a b": 1}},
                    {"class_": "code_action", "language": "python", "content": " "},
                    {"class_": "text_observation", "content": "out", "source": "environment"},
                ],
            },
        ]
    )
    report = check_trajectories(trajectories, file="f.json")
    assert report.function_calls == 3 and report.calls_with_thought == 1
    assert report.thought_share == pytest.approx(1 / 3) and not report.thoughts_ok
    assert report.unterminated == ["bad"]
    assert report.format_errors == [
        "bad step 0: api_action function 'do it!' is not an identifier",
        "bad step 0: api_action 'do it!' argument 'a b' is not an identifier",
        "bad step 1: code_action with empty code",
    ]
    assert not report.ok and check_trajectories(trajectories[:1]).ok
    assert check_trajectories(trajectories, min_thought_share=0.3).thoughts_ok
