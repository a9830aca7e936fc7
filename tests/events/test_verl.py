"""verl export layout and the reward module that scores with the project's answer metrics."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest
from builders import search_episode

from agenttune.events.verl import verl_row, write_verl_parquet
from agenttune.events.verl_reward import compute_score


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


def test_compute_score_uses_the_training_metrics():
    assert compute_score("cuad_search", "so <answer>the Nevada</answer>", ["Nevada"]) == 1.0
    assert compute_score("cuad_search", "Nevada without tags", "Nevada") == 0.0
    f1 = compute_score("cuad_search", "<answer>laws of Nevada</answer>", ["Nevada"], {"metric": "token_f1"})
    assert f1 == pytest.approx(2 * (1 / 3) / (1 / 3 + 1))
    with pytest.raises(ValueError, match="unknown metric 'bleu'"):
        compute_score("x", "<answer>a</answer>", "a", {"metric": "bleu"})
