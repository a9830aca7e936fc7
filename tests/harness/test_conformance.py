"""Every harness in the repo passes the conformance checks, and the checks catch broken harnesses."""

from collections.abc import Callable
from typing import Any

import pytest

from agenttune.events.schema import Event, TextPayload, ToolCallPayload, ToolResultPayload, replace
from agenttune.harness.conformance import ConformanceError, check_harness
from agenttune.harness.protocol import StepResult
from agenttune.harness.search_corpus import SearchCorpusHarness
from agenttune.harness.tools_harness import Question, ToolsHarness
from agenttune.rag.retriever import Hit

TASK = Question(id="q1", question="What is the notice period?")
ALL_CHECKS = ["protocol", "events", "call_ids", "episode_done", "restore", "unknown_tool"]


def word_count(text: str) -> int:
    """Count the words in a text.

    Args:
        text: The text.
    """
    return len(text.split())


class WordRetriever:
    def search(self, query: str, k: int) -> list[Hit]:
        return [Hit(f"d#{i}", "d", 1.0, word) for i, word in enumerate(query.split()[:k])]


def tool_call(call_id: str, name: str, **arguments: Any) -> Event:
    return Event(payload=ToolCallPayload(call_id=call_id, name=name, arguments=arguments))


def answer(text: str) -> Event:
    return Event(payload=TextPayload(text=text))


def tools_case() -> tuple[Callable, Any, list[Event]]:
    actions = [
        tool_call("c1", "word_count", text="a b c"),
        tool_call("c2", "word_count", text="d"),
        answer("<answer>4</answer>"),
    ]
    return (lambda: ToolsHarness([word_count])), TASK, actions


def search_corpus_case() -> tuple[Callable, Any, list[Event]]:
    actions = [
        tool_call("s1", "search", query="notice period"),
        tool_call("s2", "search", query="term"),
        answer("<answer>30 days</answer>"),
    ]
    return (lambda: SearchCorpusHarness(WordRetriever(), top_k=3)), TASK, actions


def tau2_case() -> tuple[Callable, Any, list[Event]]:
    """Airline task 6 of the test split: one read-only lookup, then the final message (about 20 s)."""
    pytest.importorskip("tau2", reason="needs the tau2 extra")
    from agenttune.benchmarks.tau2.domains import load_tasks
    from agenttune.benchmarks.tau2.harness import Tau2Harness
    from agenttune.benchmarks.tau2.oracle import oracle_script

    task = next(t for t in load_tasks("airline", "test") if t.id == "6")
    return (lambda: Tau2Harness("airline")), task, oracle_script(task)


@pytest.mark.parametrize(
    "case", [tools_case, search_corpus_case, tau2_case], ids=["tools", "search_corpus", "tau2"]
)
def test_every_harness_conforms(case):
    assert check_harness(*case()) == ALL_CHECKS


class ForgetfulHarness(ToolsHarness):
    """Restore does nothing."""

    def restore(self, snapshot: Any) -> None:
        pass


class MislabellingHarness(ToolsHarness):
    """Answers every tool call with a result for another call."""

    def step(self, action: Event) -> StepResult:
        result = super().step(action)
        for event in result.observations:
            if isinstance(event.payload, ToolResultPayload):
                event.payload = replace(event.payload, call_id="other")
        return result


class EndlessHarness(ToolsHarness):
    """Keeps stepping after the episode ended."""

    def step(self, action: Event) -> StepResult:
        if self.state.done:
            return StepResult(observations=[], done=True)
        return super().step(action)


class RawObservationHarness(ToolsHarness):
    """Returns tool output as plain strings."""

    def step(self, action: Event) -> StepResult:
        result = super().step(action)
        result.observations = [e.payload.content for e in result.observations]
        return result


class RaisingHarness(ToolsHarness):
    """Raises on a call to an unknown tool."""

    def step(self, action: Event) -> StepResult:
        if isinstance(action.payload, ToolCallPayload) and action.payload.name not in self.registry.names:
            raise KeyError(action.payload.name)
        return super().step(action)


@pytest.mark.parametrize(
    ("harness_class", "message"),
    [
        (ForgetfulHarness, "restore did not revert the state"),
        (MislabellingHarness, "does not answer this action"),
        (EndlessHarness, "must raise EpisodeDone"),
        (RawObservationHarness, "is not an Event"),
        (RaisingHarness, "unknown tool 'conformance_no_such_tool' raised KeyError"),
    ],
)
def test_broken_harnesses_fail_with_a_message(harness_class, message):
    _, task, actions = tools_case()
    with pytest.raises(ConformanceError, match=message):
        check_harness(lambda: harness_class([word_count]), task, actions)


def test_a_script_that_ends_early_is_reported():
    make, task, actions = tools_case()
    with pytest.raises(ConformanceError, match="exactly at its last action"):
        check_harness(make, task, [*actions, answer("again")])
