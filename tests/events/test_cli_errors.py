"""The events CLI answers a path it cannot read with one line naming it (exit 1), never a traceback."""

from __future__ import annotations

import pytest

from agenttune.events.cli import main


@pytest.fixture
def files(tmp_path):
    (tmp_path / "folder.jsonl").mkdir()
    (tmp_path / "empty").mkdir()
    (tmp_path / "bad.parquet").write_text("not parquet")
    depth = 100_000
    (tmp_path / "deep.json").write_text("[" * depth + "]" * depth)
    (tmp_path / "deep.jsonl").write_text(
        '{"schema_version": "1.1", "id": "x", "metadata": ' + '{"a": ' * depth + "1" + "}" * depth + "}\n"
    )
    (tmp_path / "object.json").write_text('{"not": "a list of trajectories"}')
    (tmp_path / "text.jsonl").write_text("hello\n")
    return tmp_path


CASES = [
    (["stats", "missing.jsonl"], "missing.jsonl: no such file"),
    (["validate", "missing.parquet"], "missing.parquet: no such file"),
    (["stats", "empty"], "empty: a folder with no .jsonl or .parquet file under it"),
    (["convert", "folder.jsonl", "out.parquet"], "folder.jsonl: is a folder, not a file"),
    (["convert", "missing.jsonl", "out.parquet"], "missing.jsonl: no such file"),
    (
        ["stats", "bad.parquet"],
        "bad.parquet: not a Parquet file of EventLogs (Could not open Parquet input source",
    ),
    (["convert", "bad.parquet", "out.jsonl"], "bad.parquet: not a Parquet file of EventLogs"),
    (["validate", "deep.jsonl"], "deep.jsonl:1: invalid line: "),
    (["validate", "deep.json"], "deep.json: not an ADP trajectory list"),
    (["quality", "deep.json"], "deep.json: not an ADP trajectory list"),
    (["quality", "object.json"], "object.json: not an ADP trajectory list"),
    (["quality", "text.jsonl"], "text.jsonl: not an ADP trajectory list"),
    (["quality", "bad.parquet"], "bad.parquet: not an ADP trajectory list"),
    (["quality", "missing.json"], "missing.json: no such file"),
    (["quality", "folder.jsonl"], "folder.jsonl: is a folder, not a file"),
]


@pytest.mark.parametrize(("argv", "line"), CASES, ids=[" ".join(argv) for argv, _ in CASES])
def test_an_unreadable_path_is_one_line_naming_it(argv, line, files, capsys, monkeypatch):
    monkeypatch.chdir(files)
    assert main(argv) == 1
    errors = capsys.readouterr().err.strip().splitlines()
    assert len(errors) == 1 and errors[0].startswith(line), errors
    assert "Traceback" not in errors[0]


def test_an_unwritable_target_is_one_line_naming_it(tmp_path, capsys):
    source = tmp_path / "logs.jsonl"
    source.write_text("")
    assert main(["convert", str(source), str(tmp_path / "folder.jsonl")]) == 0  # nothing to convert: fine
    (tmp_path / "taken.parquet").mkdir()
    assert main(["convert", str(source), str(tmp_path / "taken.parquet")]) == 1
    (error,) = capsys.readouterr().err.strip().splitlines()
    assert error.startswith(f"{tmp_path / 'taken.parquet'}: cannot be written")
