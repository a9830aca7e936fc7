"""``python -m agenttune.events``: stats, validate, convert and quality."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from builders import search_episode

from agenttune.events import load_jsonl, write_jsonl
from agenttune.events.cli import main
from agenttune.events.io import dumps

SAMPLE = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "adp_samples" / "toucan_1_5m.json"


def test_stats_counts_kinds_tiers_and_tools(tmp_path, capsys):
    path = tmp_path / "a.jsonl"
    write_jsonl([search_episode(log_id="1"), search_episode(log_id="2")], path)
    assert main(["stats", str(path)]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["logs"] == 2 and stats["tier"] == {"light": 2}
    assert stats["kind"]["tool_call"] == 2 and stats["kind"]["reward"] == 4 and stats["tool"] == {"search": 2}


def test_stats_of_a_run_folder_counts_episodes_by_part(tmp_path, capsys):
    folder = tmp_path / "eventlogs"
    write_jsonl([search_episode(log_id="a"), search_episode(log_id="b")], folder / "train" / "step-0.jsonl")
    write_jsonl([search_episode(log_id="c")], folder / "train" / "step-1.jsonl")
    write_jsonl([search_episode(log_id="d")], folder / "eval_after.jsonl")
    assert main(["stats", str(folder)]) == 0
    *files, summary = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [Path(f["file"]).name for f in files] == ["eval_after.jsonl", "step-0.jsonl", "step-1.jsonl"]
    assert summary == {"folder": str(folder), "episodes": {"eval_after": 1, "train": 3}}


def test_invalid_file_exits_1_naming_file_and_line(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text(dumps(search_episode()) + "\n{not json}\n" + dumps(search_episode()) + "\n")
    for command in ("stats", "validate"):
        done = subprocess.run(
            [sys.executable, "-m", "agenttune.events", command, str(path)], capture_output=True, text=True
        )
        assert done.returncode == 1
        assert f"{path}:2: invalid line" in done.stderr


def test_convert_between_formats(tmp_path, capsys):
    jsonl, parquet, adp = tmp_path / "a.jsonl", tmp_path / "a.parquet", tmp_path / "a.adp.json"
    assert main(["convert", str(SAMPLE), str(jsonl)]) == 0
    assert main(["convert", str(jsonl), str(parquet)]) == 0
    assert main(["convert", str(parquet), str(adp)]) == 0
    assert main(["validate", str(jsonl), str(parquet), str(adp)]) == 0
    assert json.loads(adp.read_text())[0]["id"] == json.loads(SAMPLE.read_text())[0]["id"]
    assert main(["convert", str(adp), str(jsonl)]) == 0  # overwrites
    assert len(load_jsonl(jsonl)) == 1


def test_quality_prints_a_report_per_file(capsys):
    assert main(["quality", str(SAMPLE)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["file"] == str(SAMPLE) and report["ok"] is True
