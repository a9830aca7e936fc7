"""JSONL durability: fsync per log, torn tails reported (and cut before appending, valid last lines kept), corrupt
lines named by file:line."""

from __future__ import annotations

import os

import pytest
from builders import search_episode

from agenttune.events import EventLogFileError, EventLogWriter, load_jsonl, read_jsonl
from agenttune.events.io import dumps


def test_writer_fsyncs_after_each_log(tmp_path, monkeypatch):
    synced = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append(fd) or real_fsync(fd))
    with EventLogWriter(tmp_path / "a.jsonl") as out:
        out.write(search_episode(log_id="1"))
        assert len(synced) == 1
        out.write(search_episode(log_id="2"))
    assert len(synced) == 2
    assert [log.id for log in load_jsonl(tmp_path / "a.jsonl")] == ["1", "2"]


def test_torn_last_line_is_reported_and_the_rest_loads(tmp_path):
    path = tmp_path / "torn.jsonl"
    good = [search_episode(log_id=str(i)) for i in range(3)]
    path.write_text("".join(dumps(log) + "\n" for log in good) + dumps(search_episode(log_id="4"))[:57])
    with pytest.warns(UserWarning, match=rf"{path}:4: torn last line"):
        contents = read_jsonl(path)  # strict, yet a torn tail is not an error
    assert contents.logs == good
    assert [(issue.line, issue.torn) for issue in contents.issues] == [(4, True)]


def test_corrupt_middle_line_raises_in_strict_mode_and_is_collected_otherwise(tmp_path):
    path = tmp_path / "bad.jsonl"
    lines = [dumps(search_episode(log_id="1")), '{"id": "x", "events": [{"payload": {"kind": "nope"}}]}']
    path.write_text("\n".join([*lines, dumps(search_episode(log_id="3"))]) + "\n")
    with pytest.raises(
        EventLogFileError, match=rf"^{path}:2: invalid line: events\[0\]\.payload\.kind: Invalid"
    ):
        read_jsonl(path)
    contents = read_jsonl(path, strict=False)
    assert [log.id for log in contents.logs] == ["1", "3"]
    assert [(issue.path, issue.line, issue.torn) for issue in contents.issues] == [(str(path), 2, False)]


def test_lines_leave_defaults_out_but_always_state_the_version():
    line = dumps(search_episode())
    assert line.startswith('{"schema_version":"1.1","id":"ep1"')
    assert '"step":0' not in line and '"actor":"tool"' in line


def test_writer_cuts_a_torn_tail_before_appending(tmp_path):
    path = tmp_path / "resume.jsonl"
    first = dumps(search_episode(log_id="1")) + "\n"
    path.write_text(first + '{"schema_version": "1.1", "id": "tor')
    with pytest.warns(
        UserWarning, match=rf"{path}: cutting a torn last line at byte {len(first)} \(36 bytes"
    ):
        out = EventLogWriter(path)
    with out:
        out.write(search_episode(log_id="2"))
    assert [log.id for log in load_jsonl(path)] == ["1", "2"]


def test_writer_keeps_a_valid_last_line_that_lacks_its_newline(tmp_path, recwarn):
    path = tmp_path / "no-final-newline.jsonl"
    path.write_text(dumps(search_episode(log_id="1")) + "\n" + dumps(search_episode(log_id="2")))
    with EventLogWriter(path) as out:
        out.write(search_episode(log_id="3"))
    assert [log.id for log in load_jsonl(path)] == ["1", "2", "3"]
    assert not recwarn.list
