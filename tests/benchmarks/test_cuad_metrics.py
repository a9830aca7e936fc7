"""CUAD episode metrics read what the episode was shown: gold-span hit and evidence from the passages' ranges,
every tool call counted, and multi-hop questions reported under their hop count."""

from agenttune.benchmarks.cuad.metrics import episode_scores
from agenttune.events.schema import Event, EventLog, TextPayload, ToolCallPayload, ToolResultPayload
from agenttune.rag.questions import QuestionRecord


def question(hops: int) -> QuestionRecord:
    return QuestionRecord(
        "q", "Which law governs?", "Nevada law", ["Nevada law"], ["d#1"], ["d"], hops, "Governing Law",
        gold_spans=[["d", 100, 200]],
    )  # fmt: skip


def episode(shown: list[list]) -> EventLog:
    call = ToolCallPayload(call_id="c1", name="search_document", arguments={"doc_id": "d", "query": "law"})
    result = ToolResultPayload(
        call_id="c1", name="search_document", content="...",
        metadata={"retrieved_ids": ["d#1"], "doc_ids": ["d"], "spans": shown, "query": "law"},
    )  # fmt: skip
    find = ToolCallPayload(call_id="c0", name="find_documents", arguments={"name": "lease"})
    listed = ToolResultPayload(call_id="c0", name="find_documents", content="[1] doc_id: d", metadata={})
    answer = TextPayload(text="<answer>Nevada law</answer>")
    events = [Event(payload=p) for p in (find, listed, call, result)]
    return EventLog(id="e", task_id="q", events=[*events, Event(payload=answer, actor="agent")])


def test_span_metrics_use_the_shown_ranges_and_every_call_counts():
    scores = episode_scores(episode([["d", 150, 310]]), question(1))
    assert scores["span_hit@8"] == 1.0 and scores["evidence"] == 0.5 and scores["hit@8"] == 1.0
    assert scores["searches_per_question"] == 2.0 and scores["em"] == 1.0
    assert scores["quote_shown"] == 0.0  # the passage showed half of the quote
    assert episode_scores(episode([["d", 90, 210]]), question(1))["quote_shown"] == 1.0
    assert not any(name.startswith("hops") for name in scores)
    missed = episode_scores(episode([["d", 0, 100]]), question(1))
    assert missed["span_hit@8"] == 0.0 and missed["evidence"] == 0.0 and missed["hit@8"] == 1.0
    assert missed["quote_shown"] == 0.0


def test_multi_hop_scores_are_also_reported_per_hop_count():
    scores = episode_scores(episode([["d", 100, 200]]), question(3))
    assert scores["hops3/evidence"] == scores["evidence"] == 1.0
    assert scores["hops3/searches_per_question"] == 2.0


def test_the_reward_is_read_from_a_scored_log_and_computed_for_an_unscored_one():
    """scored_episodes has the reward group score each log; the benchmark's scores read that total instead of
    scoring the log a second time, and score a log nobody scored (the evaluate phase's)."""
    from types import SimpleNamespace

    from agenttune.benchmarks.cuad.benchmark import CuadSearch
    from agenttune.events.schema import RewardPayload

    def with_total(log: EventLog, value: float) -> EventLog:
        total = Event(payload=RewardPayload(scope="episode", name="total", value=value), actor="judge")
        log.events.append(total)
        return log

    calls = []

    def reward_group(logs, tasks):
        calls.append(len(logs))
        return [with_total(log, 0.7) for log in logs]

    benchmark = SimpleNamespace(reward=lambda: reward_group)
    logs = [with_total(episode([["d", 150, 310]]), 0.25), episode([["d", 150, 310]])]
    scores = CuadSearch.episode_scores(benchmark, logs, [question(1)])
    assert [s["reward"] for s in scores] == [0.25, 0.7] and calls == [1]
