"""tau2 pipelines: the oracle scores 1.0 and a perturbed oracle less, through train.py's config and RunContext."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("tau2")

from agenttune.benchmarks.tau2.policy_agent import PolicyAgent  # noqa: E402
from agenttune.engines.base import Engine, Generation  # noqa: E402
from agenttune.events.schema import EventKind  # noqa: E402

SAMPLE = ["+experiment=tau2_oracle", "benchmark=tau2_telecom", "benchmark.num_eval=5"]


def test_oracle_scores_one_on_a_sample(run_pipeline):
    run_dir, summary = run_pipeline(SAMPLE)
    assert summary["status"] == "completed", summary["error"]
    assert summary["metrics"]["eval/avg_reward"] == 1.0
    assert summary["metrics"]["eval/telecom/episodes"] == 5
    lines = (run_dir / "eventlogs" / "eval_telecom.jsonl").read_text().splitlines()
    assert len(lines) == 5 and json.loads(lines[0])["metadata"]["domain"] == "telecom"


def test_perturbed_oracle_scores_below_one(run_pipeline):
    _, summary = run_pipeline([*SAMPLE, "harness.agent=skip_write"])
    assert summary["status"] == "completed", summary["error"]
    assert summary["metrics"]["eval/avg_reward"] < 1.0


class _Fixed(Engine):
    def __init__(self, texts):
        self.texts = texts

    def generate(self, conversations, tools=None, prompt_ids=None):
        assert conversations and conversations[0][0]["role"] == "system"
        return [Generation.from_text(self.texts[i % len(self.texts)]) for i in range(len(conversations))]


class _Broken(Engine):
    def generate(self, conversations, tools=None, prompt_ids=None):
        raise RuntimeError("out of memory")


def test_policy_agent_turns_generations_into_events():
    from agenttune.events.schema import Event, SystemPayload, UserPayload

    events = [Event(payload=SystemPayload(text="policy")), Event(payload=UserPayload(text="hi"))]
    call = PolicyAgent(_Fixed(['<tool_call>{"name": "get_user", "arguments": {"id": 1}}</tool_call>'])).act(
        events
    )
    assert call.kind == EventKind.TOOL_CALL and call.payload.name == "get_user"
    assert call.payload.arguments == {"id": 1}
    bad = PolicyAgent(_Fixed(["<tool_call>{not json"])).act(events)
    assert bad.kind == EventKind.TEXT
    assert PolicyAgent(_Broken()).act(events).kind == EventKind.TEXT
    assert len(PolicyAgent(_Fixed(["a", "b"])).propose(events, 3)) == 3
