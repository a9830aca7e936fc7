"""The datasets a trainer reads, in TRL's formats, grouped in one :class:`TrainingData`.

| field | columns | used by |
| --- | --- | --- |
| ``prompts`` | ``prompt`` (conversational: a list of ``{"role", "content"}`` messages) plus any extra columns, which are passed to reward functions as keyword lists (and to ``reset(**row)`` of each environment) | grpo, rloo, ppo |
| ``preferences`` | ``prompt``, ``chosen``, ``rejected`` (conversational or plain text) | dpo, bco (paired) |
| ``unpaired`` | ``prompt``, ``completion`` and either ``label`` (bool) or ``reward`` (float, labelled good when ``>= algorithm.desirable_reward``) | kto, bco (unpaired) |
| ``sft`` | ``input_ids`` + ``weights`` (the events projection to SFT), or the events layout (``to_dataset(logs)``), weighted by ``algorithm.segment_weights`` | sft |
"""

from __future__ import annotations

from dataclasses import dataclass

from datasets import Dataset


@dataclass
class TrainingData:
    """Training (and optional evaluation) datasets; each algorithm reads the field it needs."""

    prompts: Dataset | None = None
    preferences: Dataset | None = None
    unpaired: Dataset | None = None
    sft: Dataset | None = None
    eval: Dataset | None = None

    def require(self, name: str, algorithm: str) -> Dataset:
        """The dataset in field ``name``, or a ValueError naming what ``algorithm`` needs."""
        dataset = getattr(self, name)
        if dataset is None:
            raise ValueError(f"algorithm {algorithm!r} trains on TrainingData.{name}, which is empty")
        return dataset


def label_by_reward(dataset: Dataset, desirable_reward: float) -> Dataset:
    """Unpaired rows with a boolean ``label``: kept when present, else ``reward >= desirable_reward``.

    >>> rows = Dataset.from_dict({"prompt": ["a", "b"], "completion": ["x", "y"], "reward": [1.0, 0.0]})
    >>> label_by_reward(rows, 0.5)["label"]
    [True, False]
    """
    if "label" in dataset.column_names:
        return dataset
    if "reward" not in dataset.column_names:
        raise ValueError("unpaired rows need a 'label' or a 'reward' column")
    labels = [reward >= desirable_reward for reward in dataset["reward"]]
    return dataset.remove_columns("reward").add_column("label", labels)
