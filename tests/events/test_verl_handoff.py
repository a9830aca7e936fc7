"""The verl hand-off tested against verl itself: verl's RLHFDataset loads the exported parquet, and verl's custom
reward-function loading calls agenttune's ``compute_score`` on exported CUAD and tau2 rows."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from builders import search_episode
from omegaconf import OmegaConf

from agenttune.config import ModelConfig, repo_root
from agenttune.events.schema import EventKind
from agenttune.events.verl import verl_row, write_verl_parquet

# `make setup` installs verl (--no-deps, with the pieces its loaders import): skipped only where it is absent, so an
# install that cannot import (a piece missing) fails here instead of skipping
if importlib.util.find_spec("verl") is None:
    pytest.skip("verl is not installed; `make setup` installs it", allow_module_level=True)
pytest.importorskip("tau2")


def tau2_rows():
    """Oracle episodes of the first two retail tasks that must communicate something, with that as ground truth;
    and the text each agent said (what verl would decode as the solution)."""
    from agenttune.benchmarks.tau2.harness import Tau2Harness
    from agenttune.benchmarks.tau2.oracle import scripted_agent
    from agenttune.benchmarks.tau2.runner import run_tasks

    tasks = [t for t in Tau2Harness("retail").tasks("base") if t.evaluation_criteria.communicate_info][:2]
    logs = run_tasks(scripted_agent("oracle"), lambda: Tau2Harness("retail"), tasks, "retail", "oracle")
    rows = [
        verl_row(log, i, ground_truth=task.evaluation_criteria.communicate_info, metric="communicate")
        for i, (log, task) in enumerate(zip(logs, tasks, strict=True))
    ]
    said = [
        "\n".join(e.payload.text for e in log.events if e.kind == EventKind.TEXT and e.actor == "agent")
        for log in logs
    ]
    return rows, said


def test_verl_loads_the_export_and_scores_it_with_compute_score(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq
    from verl.trainer.ppo.reward import get_custom_reward_fn
    from verl.utils.dataset.rl_dataset import RLHFDataset

    from agenttune.models.loading import load_tokenizer

    cuad_path, tau2_path = tmp_path / "cuad.parquet", tmp_path / "tau2.parquet"
    write_verl_parquet(
        [search_episode(log_id=f"ep{i}") for i in range(3)], cuad_path, ground_truth=["Nevada"]
    )
    rows, said = tau2_rows()
    pq.write_table(pa.Table.from_pylist(rows), str(tau2_path))

    tokenizer = load_tokenizer(
        ModelConfig(name="tiny_random", path="tiny_random"), Path(repo_root()) / ".cache"
    )
    settings = {"max_prompt_length": 4096, "cache_dir": str(tmp_path / "verl_cache"), "return_raw_chat": True}
    dataset = RLHFDataset(
        data_files=[str(cuad_path), str(tau2_path)], tokenizer=tokenizer, config=OmegaConf.create(settings)
    )
    assert len(dataset) == 5
    items = [dataset[i] for i in range(len(dataset))]
    assert [item["data_source"] for item in items] == ["cuad_search"] * 3 + ["tau2_retail"] * 2
    assert items[0]["raw_prompt"][-1]["role"] == "user"

    reward = {"path": str(Path(repo_root()) / "agenttune/rewards/verl.py"), "name": "compute_score"}
    score = get_custom_reward_fn(
        OmegaConf.create({"reward": {"custom_reward_function": {**reward, "reward_kwargs": {}}}})
    )
    gold = items[0]["reward_model"]["ground_truth"]
    assert score("cuad_search", "<answer>Nevada</answer>", gold, items[0]["extra_info"]) == 1.0
    assert score("cuad_search", "<answer>Utah</answer>", gold, items[0]["extra_info"]) == 0.0
    for item, text in zip(items[3:], said, strict=True):
        truth = list(item["reward_model"]["ground_truth"])
        assert score("tau2_retail", text, truth, item["extra_info"]) == 1.0  # the oracle said it all
        assert score("tau2_retail", "I cannot help with that.", truth, item["extra_info"]) == 0.0
