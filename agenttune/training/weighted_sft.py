"""SFT with a loss weight per token, on TRL's :class:`~trl.SFTTrainer`.

Rows come from :func:`agenttune.events.projections.sft.sft_row`: ``input_ids`` and ``weights`` (one float per
token, by segment kind: tool calls 2.0, text and reasoning 1.0, tool results and observations 0.0 by default).

The loss (:func:`weighted_token_loss`) is the token-level cross-entropy of each next token, times that token's
weight, summed and divided by the number of target tokens whose weight is positive in the whole optimizer step:
with gradient accumulation the Trainer's ``get_batch_samples`` is where that count is taken (as transformers
counts labels for its own losses), so every weighted token of a step counts the same however its rows fall into
micro-batches. A per-micro-batch mean would instead give a short row (an agent episode that ends in one reply)
the pull of a long one, and with batches of one row that is every row. Dividing by the token count, not the
weight sum, keeps weights absolute: a token of weight 2.0 counts twice as much as one of weight 1.0, whatever
else is in the batch, and weight 0.0 tokens get no gradient. The count is per process.
Only the positions that predict a weighted token go through the LM head (the model's ``logits_to_keep``): an agent
trajectory's rows are mostly tool results of weight 0, and their ``seq x vocab`` logits cost time and memory for
nothing (a warm-start step 1.24x faster on this CPU, ``scripts/bench/sft_step.py``).

:class:`WeightedSFTTrainer` subclasses ``SFTTrainer`` and overrides only the documented ``compute_loss``; the
dataset is passed already tokenized, so SFTTrainer's preparation is skipped (``skip_prepare_dataset``) and
:class:`WeightedCollator` pads. Rows longer than ``args.max_length`` are cut to their first ``max_length`` tokens;
rows left without a weighted token are dropped with a warning (as SFTTrainer drops fully masked rows).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import torch
import torch.nn.functional as F
from datasets import Dataset
from trl import SFTConfig, SFTTrainer

from agenttune.events.projections.sft import sft_rows
from agenttune.events.schema import EventLog

logger = logging.getLogger(__name__)


def weighted_token_loss(
    logits: torch.Tensor,
    input_ids: torch.Tensor,
    weights: torch.Tensor,
    positions: torch.Tensor | None = None,
    num_weighted: int | torch.Tensor | None = None,
) -> torch.Tensor:
    """Weighted next-token cross-entropy, normalised by the count of positively weighted target tokens.

    ``logits`` is ``(batch, seq, vocab)``, or with ``positions`` ``(batch, len(positions), vocab)``: the logits at
    those positions only. Position ``t`` predicts ``input_ids[:, t + 1]`` with weight ``weights[:, t + 1]``. The
    count is this batch's, or ``num_weighted`` (the whole step's, over accumulated micro-batches). A batch
    without weighted tokens gives a zero loss (not NaN).
    """
    if positions is None:
        positions = torch.arange(input_ids.size(1) - 1, device=input_ids.device)
        logits = logits[:, :-1]
    targets = input_ids[:, positions + 1]
    target_weights = weights[:, positions + 1].to(logits.dtype)
    per_token = F.cross_entropy(
        logits.reshape(-1, logits.size(-1)), targets.reshape(-1), reduction="none"
    ).view_as(target_weights)
    count = (target_weights > 0).sum() if num_weighted is None else torch.as_tensor(num_weighted)
    return (per_token * target_weights).sum() / count.clamp(min=1)


def predicting_positions(weights: torch.Tensor) -> torch.Tensor:
    """The positions ``t`` at which some row of the batch predicts a weighted token (``weights[:, t + 1] > 0``).

    >>> predicting_positions(torch.tensor([[0.0, 0.0, 1.0, 1.0], [0.0, 2.0, 0.0, 0.0]])).tolist()
    [0, 1, 2]
    """
    return (weights[:, 1:] > 0).any(0).nonzero().squeeze(-1)


@dataclasses.dataclass
class WeightedCollator:
    """Pad ``input_ids`` (with ``pad_token_id``) and ``weights`` (with 0.0) to the longest row; add an attention mask."""

    pad_token_id: int
    pad_to_multiple_of: int | None = None

    def __call__(self, rows: Sequence[Mapping[str, Any]]) -> dict[str, torch.Tensor]:
        longest = max(len(row["input_ids"]) for row in rows)
        if self.pad_to_multiple_of:
            longest = -(-longest // self.pad_to_multiple_of) * self.pad_to_multiple_of
        input_ids = torch.full((len(rows), longest), self.pad_token_id, dtype=torch.long)
        attention_mask = torch.zeros((len(rows), longest), dtype=torch.long)
        weights = torch.zeros((len(rows), longest), dtype=torch.float32)
        for i, row in enumerate(rows):
            n = len(row["input_ids"])
            if len(row["weights"]) != n:
                raise ValueError(f"row {i}: {len(row['weights'])} weights for {n} input_ids")
            input_ids[i, :n] = torch.as_tensor(row["input_ids"], dtype=torch.long)
            attention_mask[i, :n] = 1
            weights[i, :n] = torch.as_tensor(row["weights"], dtype=torch.float32)
        return {"input_ids": input_ids, "attention_mask": attention_mask, "weights": weights}


class WeightedSFTTrainer(SFTTrainer):
    """SFTTrainer whose loss weights each token by the ``weights`` column (see the module docstring)."""

    # compute_loss divides by the step's weighted tokens, so the Trainer must not divide again by the accumulation
    loss_is_scaled_for_ga = True

    def get_batch_samples(self, epoch_iterator, num_batches, device):
        """The step's micro-batches, and its count of weighted target tokens (the Trainer counts labels, which
        these batches do not have)."""
        batch_samples, _ = super().get_batch_samples(epoch_iterator, num_batches, device)
        num_weighted = sum(int((batch["weights"][:, 1:] > 0).sum()) for batch in batch_samples)
        return batch_samples, num_weighted

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        """Weighted cross-entropy of :func:`weighted_token_loss` on one padded batch, with logits only where a row
        predicts a weighted token (:func:`predicting_positions`), divided by the step's weighted tokens
        (``num_items_in_batch``, from :meth:`get_batch_samples`; this batch's own in evaluation)."""
        input_ids, weights = inputs["input_ids"], inputs["weights"]
        positions = predicting_positions(weights)
        outputs = model(
            input_ids=input_ids,
            attention_mask=inputs["attention_mask"],
            use_cache=False,
            logits_to_keep=positions,
        )
        loss = weighted_token_loss(outputs.logits, input_ids, weights, positions, num_items_in_batch)
        mode = "train" if model.training else "eval"
        self._metrics[mode]["weighted_tokens"].append(float((weights[:, 1:] > 0).sum()))
        return (loss, outputs) if return_outputs else loss


def as_weighted_rows(
    data: Dataset | Iterable[Mapping[str, Any]] | Iterable[EventLog],
    tokenizer: Any,
    segment_weights: Mapping[str, float] | None,
    max_length: int | None,
) -> Dataset:
    """A Dataset of ``input_ids`` + ``weights`` from SFT rows, EventLogs, or a Dataset in the events layout.

    ``segment_weights`` applies when rows are projected here (from logs); rows that already carry weights keep
    them (they were weighted when projected, e.g. by ``sft_rows(logs, tokenizer, segment_weights)``).
    """
    if isinstance(data, Dataset):
        columns = set(data.column_names)
        if {"input_ids", "weights"} <= columns:
            rows: list[Mapping[str, Any]] = list(data)
            projected = False
        elif "events" in columns:
            from agenttune.events.io import from_dataset

            rows, projected = sft_rows(from_dataset(data), tokenizer, segment_weights), True
        else:
            raise ValueError(
                f"SFT data needs input_ids+weights or the events layout; it has {sorted(columns)}"
            )
    else:
        items = list(data)
        projected = bool(items) and isinstance(items[0], EventLog)
        rows = sft_rows(items, tokenizer, segment_weights) if projected else items
    if not projected and segment_weights is not None:
        logger.info(
            "SFT rows carry their own weights (set when they were projected); segment_weights is unused"
        )
    cut = slice(None, max_length)
    input_ids = [list(row["input_ids"])[cut] for row in rows]
    weights = [[float(w) for w in row["weights"]][cut] for row in rows]
    kept = [i for i, row_weights in enumerate(weights) if any(w > 0 for w in row_weights[1:])]
    if len(kept) < len(rows):
        logger.warning(
            "dropping %d of %d SFT rows with no weighted token left (after cutting to max_length=%s)",
            len(rows) - len(kept), len(rows), max_length,
        )  # fmt: skip
    if not kept:
        raise ValueError(f"no SFT row has a weighted token to train on (max_length={max_length})")
    return Dataset.from_dict(
        {"input_ids": [input_ids[i] for i in kept], "weights": [weights[i] for i in kept]}
    )


def build_weighted_sft_trainer(
    model: Any,
    tokenizer: Any,
    dataset: Dataset | Iterable[Mapping[str, Any]] | Iterable[EventLog],
    args: SFTConfig | Mapping[str, Any] | None = None,
    *,
    output_dir: str | None = None,
    segment_weights: Mapping[str, float] | None = None,
    eval_dataset: Dataset | Iterable[Any] | None = None,
    callbacks: list[Any] | None = None,
    peft_config: Any = None,
) -> WeightedSFTTrainer:
    """A :class:`WeightedSFTTrainer` ready to ``train()``.

    ``dataset`` is SFT rows (``input_ids``, ``weights``), EventLogs, or ``to_dataset(logs)``; logs are projected
    with ``segment_weights``. ``args`` is an ``SFTConfig`` or a dict of its fields (``output_dir`` fills in when
    missing). The returned trainer's config is a copy with ``remove_unused_columns=False`` and
    ``dataset_kwargs={"skip_prepare_dataset": True}``.
    """
    if args is None or isinstance(args, Mapping):
        fields = dict(args or {})
        fields.setdefault("output_dir", output_dir)
        if fields["output_dir"] is None:
            raise ValueError(
                "build_weighted_sft_trainer needs an output_dir (argument or args['output_dir'])"
            )
        args = SFTConfig(**fields)
    dataset_kwargs = {**(args.dataset_kwargs or {}), "skip_prepare_dataset": True}
    args = dataclasses.replace(args, remove_unused_columns=False, dataset_kwargs=dataset_kwargs)
    if tokenizer.pad_token_id is None:
        raise ValueError(
            "the tokenizer has no pad token; set tokenizer.pad_token before building the trainer"
        )
    train_rows = as_weighted_rows(dataset, tokenizer, segment_weights, args.max_length)
    eval_rows = None
    if eval_dataset is not None:
        eval_rows = as_weighted_rows(eval_dataset, tokenizer, segment_weights, args.max_length)
    return WeightedSFTTrainer(
        model=model,
        args=args,
        train_dataset=train_rows,
        eval_dataset=eval_rows,
        processing_class=tokenizer,
        data_collator=WeightedCollator(tokenizer.pad_token_id, args.pad_to_multiple_of),
        callbacks=callbacks,
        peft_config=peft_config,
    )
