"""tau2 through the generic evaluate pipeline: the oracle scores 1.0 and a perturbed oracle less (train.py config,
RunContext); policy episodes are batched through the episode loop."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("tau2")

from agenttune.benchmarks.tau2.harness import Tau2Harness  # noqa: E402
from agenttune.benchmarks.tau2.runner import run_tasks  # noqa: E402
from agenttune.engines.base import Engine, Generation  # noqa: E402
from agenttune.events.schema import EventKind  # noqa: E402

SAMPLE = ["+experiment=tau2_oracle", "benchmark=tau2_telecom", "benchmark.num_eval=5"]


def test_oracle_scores_one_on_a_sample(run_pipeline):
    run_dir, summary = run_pipeline(SAMPLE)
    assert summary["status"] == "completed", summary["error"]
    assert summary["metrics"]["eval/avg_reward"] == 1.0
    assert summary["metrics"]["eval/telecom/episodes"] == 5
    lines = (run_dir / "eventlogs" / "eval.jsonl").read_text().splitlines()
    assert len(lines) == 5 and json.loads(lines[0])["metadata"]["domain"] == "telecom"


def test_perturbed_oracle_scores_below_one(run_pipeline):
    _, summary = run_pipeline([*SAMPLE, "harness.agent=skip_write"])
    assert summary["status"] == "completed", summary["error"]
    assert summary["metrics"]["eval/avg_reward"] < 1.0


class _Fixed(Engine):
    """Answers every conversation with the same text; records the size of each batch."""

    def __init__(self, text):
        self.text, self.batches = text, []

    def generate(self, conversations, tools=None, prompt_ids=None):
        assert all(c[0]["role"] == "system" for c in conversations) and tools
        self.batches.append(len(conversations))
        return [Generation.from_text(self.text) for _ in conversations]


def test_policy_episodes_are_batched_through_the_episode_loop():
    harness = Tau2Harness("telecom", max_steps=4)
    tasks = harness.tasks("base")[:3]
    engine = _Fixed(
        '<tool_call>{"name": "get_customer_by_phone", "arguments": {"phone_number": "0"}}</tool_call>'
    )
    logs = run_tasks(engine, lambda: Tau2Harness("telecom", max_steps=4), tasks, "telecom", "policy")
    assert engine.batches == [3, 3, 3, 3]  # every turn of the three episodes in one generate call
    for log in logs:
        assert log.metadata["termination_reason"] == "max_steps" and log.metadata["steps"] == 4
        assert log.metadata["reward"] == 0.0 and log.metadata["termination"] == "harness_done"


def test_an_episode_the_loop_ends_first_is_scored_by_closing_its_harness():
    harness = Tau2Harness("telecom", max_steps=3)
    engine = _Fixed("<tool_call>{not json")  # parser errors: no action reaches the harness
    (log,) = run_tasks(
        engine, lambda: Tau2Harness("telecom", max_steps=3), harness.tasks("base")[:1], "telecom"
    )
    assert log.metadata["termination"] == "max_turns" and log.metadata["termination_reason"] == "max_steps"
    assert log.metadata["steps"] == 0 and log.events[-1].kind == EventKind.REWARD
