"""Agent strategies and the episode loop that turns engine output into EventLogs."""

from agenttune.agents.episode import run_episodes
from agenttune.agents.state import EpisodeState, TurnOutcome
from agenttune.agents.strategies import MemoryReAct, PlanExecute, ReAct, Reflexion
from agenttune.agents.tokens import TokenTrack, TokenTrackError

__all__ = [
    "EpisodeState",
    "MemoryReAct",
    "PlanExecute",
    "ReAct",
    "Reflexion",
    "TokenTrack",
    "TokenTrackError",
    "TurnOutcome",
    "run_episodes",
]
