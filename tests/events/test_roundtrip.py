"""Lossless round trips of generated logs (all kinds, both tiers, branches) through JSONL, Parquet and datasets."""

from __future__ import annotations

import warnings

from eventlog_strategies import full_logs, light_logs, logs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agenttune.events import (
    EventLog,
    EventLogWriter,
    from_dataset,
    load_jsonl,
    read_parquet,
    to_dataset,
    write_parquet,
)
from agenttune.events.io import dumps, loads

FILE_SETTINGS = settings(
    max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@given(logs)
@settings(max_examples=60, deadline=None)
def test_json_line_round_trip_is_lossless(log: EventLog):
    line = dumps(log)
    again = loads(line)
    assert again == log
    assert dumps(again) == line


@given(st.lists(logs, min_size=1, max_size=4))
@FILE_SETTINGS
def test_jsonl_file_round_trip(tmp_path_factory, batch: list[EventLog]):
    path = tmp_path_factory.mktemp("jsonl") / "logs.jsonl"
    with EventLogWriter(path) as out:
        for log in batch:
            out.write(log)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert load_jsonl(path) == batch
    assert path.read_text().split("\n")[:-1] == [dumps(log) for log in batch]


@given(st.lists(logs, min_size=1, max_size=4))
@FILE_SETTINGS
def test_parquet_round_trip(tmp_path_factory, batch: list[EventLog]):
    path = tmp_path_factory.mktemp("parquet") / "logs.parquet"
    write_parquet(batch, path)
    assert read_parquet(path) == batch


@given(st.lists(st.one_of(light_logs(), full_logs()), min_size=1, max_size=3))
@settings(max_examples=8, deadline=None)
def test_dataset_round_trip(batch: list[EventLog]):
    dataset = to_dataset(batch)
    assert len(dataset) == len(batch)
    assert from_dataset(dataset) == batch


@given(full_logs())
@settings(max_examples=20, deadline=None)
def test_generated_full_logs_keep_their_tier(log: EventLog):
    assert loads(dumps(log)).tier == "full"
