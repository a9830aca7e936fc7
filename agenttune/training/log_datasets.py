"""Training data for every algorithm from recorded trajectories (EventLogs), by the events projections.

Each assistant turn of a log is a target (:func:`~agenttune.events.projections.turns.turn_targets`: the
conversation before it, and the turn). From the same targets:

- ``sft``: whole logs as weighted SFT rows (tool results weigh 0, tool calls 2, text 1 by default);
- ``dpo`` / ``bco`` pairs: chosen = the recorded turn, rejected = the turn recorded at the same position of
  another log (a reply that belongs to another conversation);
- ``kto`` / ``bco`` unpaired: the same two completions labelled good and bad;

The on-policy algorithms sample instead: the ``adp_samples`` benchmark's recorded turns, rewritten by the policy
through the episode loop (:mod:`agenttune.benchmarks.adp_samples`).
"""

from __future__ import annotations

from collections.abc import Sequence

from datasets import Dataset

from agenttune.config import AlgorithmConfig
from agenttune.events.projections.sft import sft_rows
from agenttune.events.projections.turns import turn_targets
from agenttune.events.schema import EventLog
from agenttune.training.data import TrainingData
from agenttune.training.registry import algorithm_info


def training_data(
    algorithm: AlgorithmConfig,
    logs: Sequence[EventLog],
    tokenizer,
    max_prompt_turns: int = 4,
) -> TrainingData:
    """The :class:`TrainingData` field ``algorithm.name`` trains on, built from ``logs`` (the algorithms that learn
    from recorded data: sft, dpo, bco, kto)."""
    data = algorithm_info(algorithm.name).data
    if data == "sft":
        # The weighted SFT trainer cuts rows to algorithm.max_length.
        return TrainingData(sft=Dataset.from_list(sft_rows(logs, tokenizer, dict(algorithm.segment_weights))))
    targets = turn_targets(logs, max_prompt_turns)
    prompts = [prompt for prompt, _ in targets]
    chosen = [turn for _, turn in targets]
    rejected = chosen[1:] + chosen[:1]  # the turn of the next target: another position or another log
    if data == "preferences":
        rows = {"prompt": prompts, "chosen": [[t] for t in chosen], "rejected": [[t] for t in rejected]}
        return TrainingData(preferences=Dataset.from_dict(rows))
    if data == "unpaired":
        rows = {
            "prompt": prompts + prompts,
            "completion": [[t] for t in chosen] + [[t] for t in rejected],
            "label": [True] * len(chosen) + [False] * len(rejected),
        }
        return TrainingData(unpaired=Dataset.from_dict(rows))
    raise ValueError(f"algorithm.name={algorithm.name!r} has no log dataset")
