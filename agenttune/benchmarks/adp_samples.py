"""``benchmark=adp_samples``: real agent trajectories in the Agent Data Protocol (``<data_dir>/adp_samples``).

``benchmark.files`` are imported as EventLogs (the first ``benchmark.num_train``; 0 keeps all). Algorithms that
learn from recorded data train on them directly (:meth:`AdpSamples.recorded_logs`); on-policy algorithms rewrite
their assistant turns: each turn is a train task (:class:`~agenttune.harness.recorded_turns.RecordedTurn`: the
conversation before it, at most ``benchmark.max_prompt_turns`` recent messages), the policy's reply ends the
episode and is scored by its similarity to the recorded turn plus the tool-call format reward.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agenttune.benchmarks.base import Benchmark, register
from agenttune.engines.tool_calls import assistant_text
from agenttune.events.adp import import_adp
from agenttune.events.projections.messages import chat_messages
from agenttune.events.projections.turns import turn_targets
from agenttune.events.schema import EventLog
from agenttune.harness.recorded_turns import RecordedTurn, RecordedTurnHarness
from agenttune.rewards.episode import EpisodeReward
from agenttune.rewards.format import tool_call_format
from agenttune.rewards.mix import RewardMix
from agenttune.rewards.reference import reference_similarity


def recorded_turns(logs: Sequence[EventLog], max_prompt_turns: int = 4) -> list[RecordedTurn]:
    """Every assistant turn of ``logs`` (see :func:`turn_targets`) as a task for on-policy training; of turns
    with the same prompt (a task is known by its opening) the first is kept."""
    turns: dict[str, RecordedTurn] = {}
    for prompt, turn in turn_targets(logs, max_prompt_turns):
        key = json.dumps(prompt, sort_keys=True, default=str)
        if key not in turns:
            turns[key] = RecordedTurn(id=f"turn-{len(turns)}", prompt=prompt, reference=assistant_text(turn))
    return list(turns.values())


def recorded_turn_columns(log: EventLog, task: RecordedTurn) -> dict[str, Any]:
    """The policy's reply as it wrote it (text and ``<tool_call>`` blocks) and the recorded turn."""
    messages = chat_messages(log)
    reply = assistant_text(messages[-1]) if messages and messages[-1]["role"] == "assistant" else ""
    return {"completion": reply, "reference": task.reference}


def recorded_turn_reward() -> EpisodeReward:
    """Similarity to the recorded turn plus the tool-call format reward, equally weighted."""
    mix = RewardMix({"reference_similarity": (reference_similarity, 1.0), "format": (tool_call_format, 1.0)})
    return EpisodeReward(mix, recorded_turn_columns)


@register("adp_samples")
class AdpSamples(Benchmark):
    splits = ("train",)

    def recorded_logs(self) -> list[EventLog]:
        return self._logs

    @functools.cached_property
    def _logs(self) -> list[EventLog]:
        folder = Path(self.cfg.paths.data_dir) / "adp_samples"
        if not folder.is_dir():
            raise FileNotFoundError(
                f"{folder} is missing: put the data folder beside the repo (../shared/data) or set AGENTTUNE_DATA_DIR"
            )
        logs = [log for name in self.cfg.benchmark.files for log in import_adp(folder / name)]
        return logs[: self.cfg.benchmark.num_train] if self.cfg.benchmark.num_train else logs

    def tasks(self, split: str, limit: int | None = None) -> list[RecordedTurn]:
        self.limit(split, limit)
        turns = recorded_turns(self._logs, self.cfg.benchmark.max_prompt_turns)
        return turns[:limit] if limit else turns

    def harness(self, task: RecordedTurn) -> RecordedTurnHarness:
        return RecordedTurnHarness()

    def reward(self) -> EpisodeReward:
        return recorded_turn_reward()
