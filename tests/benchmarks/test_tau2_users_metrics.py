"""The LLM user adapter (with a fake engine) and the run metrics."""

from __future__ import annotations

import pytest

pytest.importorskip("tau2.domains.telecom.environment")

from agenttune.benchmarks.base import compare_task_rewards as compare  # noqa: E402
from agenttune.benchmarks.tau2.harness import Tau2Harness  # noqa: E402
from agenttune.benchmarks.tau2.metrics import summarize  # noqa: E402
from agenttune.benchmarks.tau2.oracle import scripted_agent  # noqa: E402
from agenttune.benchmarks.tau2.runner import run_tasks  # noqa: E402
from agenttune.benchmarks.tau2.users import LLMUser  # noqa: E402
from agenttune.engines.base import Generation  # noqa: E402
from agenttune.events.schema import Event, EventKind, TextPayload  # noqa: E402


class FakeEngine:
    """Generates the raw texts of a script (parsed like any engine's); records what it was asked."""

    def __init__(self, replies: list[str]) -> None:
        self.replies = list(replies)
        self.calls: list[tuple[list[list[dict]], list | None]] = []

    def generate(self, conversations, tools=None, prompt_ids=None):
        self.calls.append((conversations, tools))
        return [Generation.from_text(self.replies.pop(0))]


@pytest.fixture(scope="module")
def telecom():
    harness = Tau2Harness("telecom")
    return harness, harness.tasks("base")[:4]


def test_llm_user_talks_and_uses_phone_tools(telecom):
    harness, tasks = telecom
    engine = FakeEngine(
        [
            "My mobile data does not work.",
            '<tool_call>{"name": "toggle_airplane_mode", "arguments": {}}</tool_call>',
            "Done, airplane mode is toggled.",
            "Thanks! ###STOP###",
        ]
    )
    llm_harness = Tau2Harness("telecom", user=LLMUser(engine))
    opening = llm_harness.reset(tasks[0])
    assert opening[1].payload.text == "My mobile data does not work."
    system = engine.calls[0][0][0][0]
    assert system["role"] == "system" and "###STOP###" in system["content"]
    assert engine.calls[0][1]  # phone tools offered
    result = llm_harness.step(Event(payload=TextPayload(text="Please toggle airplane mode.")))
    assert result.observations[0].payload.text == "Done, airplane mode is toggled."
    end = llm_harness.step(Event(payload=TextPayload(text="Anything else?")))
    assert end.done and end.info["termination_reason"] == "user_stop"
    assert [c["name"] for c in end.info["user_tool_calls"]] == ["toggle_airplane_mode"]


def test_a_failing_user_simulator_ends_with_error(telecom):
    _, tasks = telecom
    engine = FakeEngine(["Hello"])  # nothing left for the second call
    harness = Tau2Harness("telecom", user=LLMUser(engine))
    harness.reset(tasks[0])
    result = harness.step(Event(payload=TextPayload(text="How can I help?")))
    assert result.done and result.info["termination_reason"] == "error"
    assert result.observations[0].kind == EventKind.ERROR


def test_metrics_and_comparison(telecom):
    harness, tasks = telecom
    kinds = harness.tool_kinds() | harness.user_tool_kinds()
    make_harness = lambda: Tau2Harness("telecom")  # noqa: E731
    good = run_tasks(scripted_agent("oracle"), make_harness, tasks, "telecom")
    bad = run_tasks(scripted_agent("skip_write", kinds), make_harness, tasks, "telecom")
    summary = summarize(good)
    assert (
        summary["avg_reward"] == 1.0
        and summary["low_reward_rate"] == 0.0
        and summary["max_steps_rate"] == 0.0
    )
    worse = summarize(bad)
    assert worse["avg_reward"] < 1.0 and worse["low_reward_rate"] > 0.0
    assert compare(bad, good)["improved"] == sum(log.metadata["reward"] < 1.0 for log in bad)
    assert compare(good, bad)["regressed"] == compare(bad, good)["improved"]
