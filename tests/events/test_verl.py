"""verl export layout: one parquet row per task prompt (the reward module is tested with the rewards)."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest
from builders import search_episode

from agenttune.events.verl import verl_row, write_verl_parquet


def test_verl_rows_have_verls_layout(tmp_path):
    log = search_episode()
    log.metadata["ground_truth"] = "Nevada"
    row = verl_row(log, 0)
    assert set(row) == {"data_source", "prompt", "ability", "reward_model", "extra_info"}
    assert row["data_source"] == "cuad_search"
    assert [m["role"] for m in row["prompt"]] == ["system", "user"]
    assert row["reward_model"] == {"style": "rule", "ground_truth": ["Nevada"]}
    assert json.loads(row["extra_info"]["tools"])[0]["function"]["name"] == "search"
    path = tmp_path / "train.parquet"
    assert write_verl_parquet([log, log], path, ground_truth=["Nevada", "NV"]) == 2
    table = pq.read_table(path).to_pylist()
    assert (
        table[1]["reward_model"]["ground_truth"] == ["Nevada", "NV"] and table[1]["extra_info"]["index"] == 1
    )


def test_verl_row_needs_ground_truth():
    with pytest.raises(ValueError, match="no ground truth"):
        verl_row(search_episode(), 0)
