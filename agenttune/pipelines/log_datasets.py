"""Training data for every algorithm from recorded trajectories (EventLogs), by the events projections.

Each assistant turn of a log is a target: its prompt is the conversation before it (the opening messages and
the last ``max_prompt_turns`` messages, each cut to ``max_chars``), its reference is the turn itself. From the
same targets:

- ``sft``: whole logs as weighted SFT rows (tool results weigh 0, tool calls 2, text 1 by default);
- ``dpo`` / ``bco`` pairs: chosen = the recorded turn, rejected = the turn recorded at the same position of
  another log (a reply that belongs to another conversation);
- ``kto`` / ``bco`` unpaired: the same two completions labelled good and bad;
- ``grpo`` / ``rloo`` / ``ppo``: :class:`~agenttune.harness.recorded_turns.RecordedTurn` tasks
  (:func:`recorded_turns`) whose episodes the policy writes through the episode loop, scored by
  :func:`reference_similarity` and the tool-call format reward (:func:`recorded_turn_reward`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from difflib import SequenceMatcher
from typing import Any

from datasets import Dataset

from agenttune.config import AlgorithmConfig
from agenttune.engines.tool_calls import assistant_text
from agenttune.events.projections.messages import chat_messages
from agenttune.events.projections.sft import sft_rows
from agenttune.events.schema import EventLog
from agenttune.harness.recorded_turns import RecordedTurn
from agenttune.rewards.cuad_search import completion_text
from agenttune.rewards.episode import EpisodeReward
from agenttune.rewards.format import tool_call_format
from agenttune.rewards.mix import RewardMix
from agenttune.training import TrainingData


def _cut(message: dict[str, Any], max_chars: int) -> dict[str, Any]:
    return {**message, "content": (message.get("content") or "")[:max_chars]}


def turn_targets(
    logs: Sequence[EventLog], max_prompt_turns: int = 4, max_chars: int = 600
) -> list[tuple[list[dict], dict]]:
    """``(prompt messages, assistant turn)`` for every assistant turn that has a user or system message before it."""
    targets = []
    for log in logs:
        messages = [_cut(m, max_chars) for m in chat_messages(log)]
        opening = [m for m in messages[:2] if m["role"] in ("system", "user")]
        for index, message in enumerate(messages):
            if message["role"] != "assistant" or index < len(opening):
                continue
            recent = messages[max(len(opening), index - max_prompt_turns) : index]
            targets.append((opening + recent, message))
    if not targets:
        raise ValueError("the logs hold no assistant turn after an opening user or system message")
    return targets


def reference_similarity(completions: list, reference: list[str], **kwargs: Any) -> list[float]:
    """Character-level similarity (difflib ratio) between each completion and the recorded turn it should reproduce.

    Dense on purpose: even an untrained policy's completions differ in it, so a group has a learning signal.

    >>> reference_similarity(["search the lease", "xyz"], reference=["search the lease term"] * 2)
    [0.8648648648648649, 0.0]
    """
    return [
        SequenceMatcher(None, completion_text(c), ref).ratio()
        for c, ref in zip(completions, reference, strict=True)
    ]


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


def training_data(
    algorithm: AlgorithmConfig,
    logs: Sequence[EventLog],
    tokenizer,
    max_prompt_turns: int = 4,
) -> TrainingData:
    """The :class:`TrainingData` field ``algorithm.name`` trains on, built from ``logs`` (the recorded-data
    algorithms; the on-policy ones sample :func:`recorded_turns`)."""
    if algorithm.name == "sft":
        # The weighted SFT trainer cuts rows to algorithm.max_length.
        return TrainingData(sft=Dataset.from_list(sft_rows(logs, tokenizer, dict(algorithm.segment_weights))))
    targets = turn_targets(logs, max_prompt_turns)
    prompts = [prompt for prompt, _ in targets]
    chosen = [turn for _, turn in targets]
    rejected = chosen[1:] + chosen[:1]  # the turn of the next target: another position or another log
    if algorithm.name in ("dpo", "bco"):
        rows = {"prompt": prompts, "chosen": [[t] for t in chosen], "rejected": [[t] for t in rejected]}
        return TrainingData(preferences=Dataset.from_dict(rows))
    if algorithm.name == "kto":
        rows = {
            "prompt": prompts + prompts,
            "completion": [[t] for t in chosen] + [[t] for t in rejected],
            "label": [True] * len(chosen) + [False] * len(rejected),
        }
        return TrainingData(unpaired=Dataset.from_dict(rows))
    raise ValueError(f"algorithm.name={algorithm.name!r} has no log dataset")
