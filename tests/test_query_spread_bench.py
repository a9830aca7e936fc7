"""scripts/bench/cuad_query_spread.py: a group counts as spread only when its own episodes differ."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from agenttune.events.schema import Event, EventLog, RewardPayload, ToolCallPayload

PATH = Path(__file__).resolve().parents[1] / "scripts" / "bench" / "cuad_query_spread.py"
spec = importlib.util.spec_from_file_location("cuad_query_spread", PATH)
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)


def episode(task: str, query: str | None, evidence: float) -> EventLog:
    call = [] if query is None else [ToolCallPayload(call_id="c0", name="search", arguments={"query": query})]
    reward = [RewardPayload(scope="episode", name="evidence", value=evidence)]
    events = [Event(payload=payload, actor="agent") for payload in [*call, *reward]]
    return EventLog(id=f"{task}-{query}", source="cuad_search", task_id=task, events=events)


def test_groups_spread_only_where_their_own_episodes_differ():
    logs = [
        # q1: two queries, both find the gold passage; q2: one query, evidence split; q3: one search missing
        episode("q1", "governing law", 1.0),
        episode("q1", "which law governs", 1.0),
        episode("q2", "term", 0.0),
        episode("q2", "term", 1.0),
        episode("q3", None, 0.0),
        episode("q3", "notice", 0.0),
    ]
    hits = [1.0, 1.0, 0.0, 1.0, 0.0, 0.0]
    result = bench.spread(logs, [{"hit@8": hit} for hit in hits], {"evidence": 0.5})
    assert result["groups"] == 3
    assert result["queries_differ"] == 2  # q1's two wordings, q3's none against one
    assert result["hit@8_differs"] == 1 and result["evidence_differs"] == 1  # q2 alone
    assert result["evidence_share"] == pytest.approx(0.5 * 0.5 / 3, abs=1e-4)
    assert result["hit@8"] == 0.5 and result["no_search"] == pytest.approx(1 / 6, abs=1e-3)
