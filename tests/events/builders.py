"""Small hand-built logs shared by the events tests."""

from __future__ import annotations

from agenttune.events.schema import (
    Event,
    EventLog,
    ReasoningPayload,
    RewardPayload,
    SystemPayload,
    TextPayload,
    ToolCallPayload,
    ToolResultPayload,
    TurnCompletePayload,
    UserPayload,
)

SEARCH_TOOL = {
    "type": "function",
    "function": {
        "name": "search",
        "description": "Search the corpus.",
        "parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
    },
}


def search_episode(answer: str = "Nevada", log_id: str = "ep1", reward: float = 1.0) -> EventLog:
    """system, user, reasoning + tool call, tool result, final text, turn end, episode rewards."""
    return EventLog(
        id=log_id,
        source="cuad_search",
        task_id="q1",
        tools=[SEARCH_TOOL],
        events=[
            Event(payload=SystemPayload(text="Answer with <answer></answer>."), actor="system"),
            Event(payload=UserPayload(text="Which state's law governs?"), actor="user"),
            Event(payload=ReasoningPayload(text="I should search.")),
            Event(payload=ToolCallPayload(call_id="c1", name="search", arguments={"query": "governing law"})),
            Event(
                payload=ToolResultPayload(
                    call_id="c1",
                    name="search",
                    content="laws of Nevada",
                    metadata={"retrieved_ids": ["d3", "d7"]},
                ),
                actor="tool",
            ),
            Event(payload=TextPayload(text=f"<answer>{answer}</answer>"), step=1),
            Event(payload=TurnCompletePayload(), step=1),
            Event(payload=RewardPayload(scope="episode", name="total", value=reward), actor="judge"),
            Event(payload=RewardPayload(scope="episode", name="answer", value=reward), actor="judge"),
        ],
    )
