"""Two runs' episodes compared: pairing by task, the first divergence, the command's summary and exit status."""

from __future__ import annotations

import json

import msgspec
from builders import search_episode

from agenttune.events import write_jsonl
from agenttune.events.cli import main
from agenttune.events.diff import EXCERPT, compare, first_divergence


def retask(log, task_id: str):
    return msgspec.structs.replace(log, task_id=task_id)


def test_same_payloads_are_the_same_episode_whatever_the_logprobs():
    first = search_episode()
    second = search_episode(log_id="other")
    second.events[3] = msgspec.structs.replace(second.events[3], logprobs=[-0.5, -0.1])
    assert first_divergence(first, second) is None


def test_the_first_differing_event_and_character_are_found():
    divergence = first_divergence(search_episode(answer="Nevada"), search_episode(answer="Nebraska"))
    assert divergence.event == 5 and divergence.kind == ("text", "text")
    assert divergence.first == '{"kind":"text","text":"<answer>Nevada</answer>"}'
    assert divergence.second == '{"kind":"text","text":"<answer>Nebraska</answer>"}'


def test_a_long_divergence_is_shown_from_a_few_characters_before_it():
    divergence = first_divergence(
        search_episode(answer="x" * 100 + "A"), search_episode(answer="x" * 100 + "B")
    )
    assert divergence.first == "x" * EXCERPT + 'A</answer>"}'
    assert divergence.second == "x" * EXCERPT + 'B</answer>"}'


def test_an_episode_that_ends_earlier_diverges_at_its_end():
    short = search_episode()
    short = msgspec.structs.replace(short, events=short.events[:5])
    divergence = first_divergence(short, search_episode())
    assert divergence.event == 5 and divergence.kind == ("end", "text")


def test_episodes_pair_by_task_in_order_and_unpaired_tasks_are_named():
    first = [
        retask(search_episode(), "a"),
        retask(search_episode(answer="x"), "b"),
        retask(search_episode(), "b"),
    ]
    second = [retask(search_episode(), "b"), retask(search_episode(), "b"), retask(search_episode(), "c")]
    comparison = compare(first, second)
    assert comparison.same == 1 and [d.task_id for d in comparison.diverging] == ["b"]
    assert comparison.only_first == ["a"] and comparison.only_second == ["c"]
    assert comparison.summary() == {
        "pairs": 2,
        "same": 1,
        "differ": 1,
        "first_difference_kind": {"text": 1},
        "first_difference_event": {5: 1},
        "only_first": 1,
        "only_second": 1,
    }


def test_diff_command_prints_divergences_then_a_summary_and_exits_1_when_runs_differ(tmp_path, capsys):
    same, changed = tmp_path / "same.jsonl", tmp_path / "changed.jsonl"
    write_jsonl([search_episode()], same)
    write_jsonl([search_episode(answer="Ohio")], changed)
    assert main(["diff", str(same), str(same)]) == 0
    assert json.loads(capsys.readouterr().out)["same"] == 1
    assert main(["diff", str(same), str(changed)]) == 1
    divergence, summary = map(json.loads, capsys.readouterr().out.splitlines())
    assert divergence["event"] == 5 and summary["differ"] == 1


def test_diff_of_a_missing_file_names_it(tmp_path, capsys):
    write_jsonl([search_episode()], tmp_path / "a.jsonl")
    assert main(["diff", str(tmp_path / "a.jsonl"), str(tmp_path / "missing.jsonl")]) == 1
    assert "missing.jsonl: no such file" in capsys.readouterr().err
