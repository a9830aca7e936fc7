"""DPO's forwards with each pair's prompt run once: its chosen and rejected completions packed behind one copy.

TRL's DPOTrainer scores a batch of B pairs as 2B rows, ``[chosen_1..B; rejected_1..B]``, each the whole prompt then
one completion, so the policy forward, its recomputation under activation checkpointing and the reference forward
encode every prompt twice. In divergence-point pairs the prompt is the episode up to the turn where a failure
departs from a success: on tau2 airline ~7.4k of a pair's ~7.5k tokens. Here each pair is one packed row,

    prompt[:-1] | prompt[-1] chosen | prompt[-1] rejected

with the block attention mask and restarting positions of :mod:`agenttune.training.shared_prompt` (each
completion sees the prompt and itself, at the positions it has in its own row), and each completion's per-token
log-probabilities (and the fused LM head's other per-token fields) are put back where TRL reads them. TRL's loss
types, reference handling, metrics and logging run unchanged; loss, metrics and gradients equal TRL's up to float
rounding (``tests/training/test_shared_prompt_dpo.py``).

TRL has no hook for the forward of a DPO batch, so while the trainer computes one batch's loss (or reference
log-probabilities) it puts a forward pre-hook and hook on the policy and the reference model (torch's
``register_forward_pre_hook``); they rewrite only the call whose ``input_ids`` is that batch's tensor. A batch it
cannot pack goes TRL's way: a row whose completion was truncated away (``max_length``), chosen and rejected rows
with different prompts, MoE auxiliary losses, and attention kernels that take no custom mask.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import NamedTuple

import torch
from trl import DPOTrainer

from agenttune.training.shared_prompt import MASKABLE_ATTENTION, pack_group, segment_attention_mask


class Span(NamedTuple):
    """Where one completion's per-token values are, in its packed row and in TRL's row."""

    packed_row: int
    packed_start: int  # its first token's position in the packed row
    row: int  # TRL's row: chosen 1..B, then rejected 1..B
    start: int  # its first token's index in TRL's per-token values: the prompt's length - 1
    length: int


@dataclass
class PackedPairs:
    """A DPO batch as one packed row a pair, and where each completion's values go back."""

    # input_ids, position_ids, shift_labels, and the attention mask (B, 1, L, L)
    model_inputs: dict[str, torch.Tensor]
    spans: list[Span]
    width: int  # TRL's per-token width: its rows' length - 1

    def unpack(self, per_token: torch.Tensor) -> torch.Tensor:
        """A per-token field of the packed rows laid out as TRL's ``[2B, width]`` (zeros off the completions)."""
        rows: list[torch.Tensor] = [per_token.new_zeros(0)] * len(self.spans)
        for span in self.spans:
            values = per_token[span.packed_row, span.packed_start : span.packed_start + span.length]
            after = self.width - span.start - span.length
            rows[span.row] = torch.cat([values.new_zeros(span.start), values, values.new_zeros(after)])
        return torch.stack(rows)


def completion_span(attention_mask: torch.Tensor, completion_mask: torch.Tensor) -> tuple[int, int] | None:
    """A row's (prompt length, completion length); None unless the row is prompt, completion, then right padding."""
    length = int(attention_mask.sum())
    completion = int(completion_mask.sum())
    prompt = length - completion
    if completion == 0 or prompt == 0 or not bool(attention_mask[:length].all()):
        return None
    if not bool(completion_mask[prompt:length].all()):
        return None
    return prompt, completion


def pack_pairs(
    inputs: dict[str, torch.Tensor], implementation: str, mask_dtype: torch.dtype
) -> PackedPairs | None:
    """``inputs`` (TRL's collated ``[chosen; rejected]`` batch) packed one row a pair; None where it cannot be."""
    input_ids, attention_mask = inputs["input_ids"], inputs["attention_mask"]
    completion_mask = inputs["completion_mask"]
    pairs = input_ids.size(0) // 2
    packed_rows, spans = [], []
    for pair in range(pairs):
        chosen, rejected = pair, pair + pairs
        chosen_span = completion_span(attention_mask[chosen], completion_mask[chosen])
        rejected_span = completion_span(attention_mask[rejected], completion_mask[rejected])
        if chosen_span is None or rejected_span is None or chosen_span[0] != rejected_span[0]:
            return None
        prompt_length = chosen_span[0]
        if not torch.equal(input_ids[chosen, :prompt_length], input_ids[rejected, :prompt_length]):
            return None
        completions = [
            input_ids[row, prompt_length : prompt_length + length]
            for row, (_, length) in ((chosen, chosen_span), (rejected, rejected_span))
        ]
        packed_rows.append(pack_group(input_ids[chosen, :prompt_length].tolist(), completions))
        start = prompt_length - 1  # the chosen completion's first position, in both layouts
        spans.append(Span(pair, start, chosen, start, chosen_span[1]))
        spans.append(Span(pair, start + chosen_span[1] + 1, rejected, start, rejected_span[1]))
    return PackedPairs(
        model_inputs=padded_rows(packed_rows, implementation, mask_dtype, input_ids.device),
        spans=spans,
        width=input_ids.size(1) - 1,
    )


def padded_rows(
    packed_rows: list[dict[str, torch.Tensor]],
    implementation: str,
    mask_dtype: torch.dtype,
    device: torch.device,
) -> dict[str, torch.Tensor]:
    """Packed rows right-padded to one length, with a ``(B, 1, L, L)`` mask; padding is a segment of its own."""
    length = max(len(row["input_ids"]) for row in packed_rows)
    padding = {"input_ids": 0, "position_ids": 0, "shift_labels": -100, "segments": -1}
    columns = {
        name: torch.stack(
            [
                torch.nn.functional.pad(row[name], (0, length - len(row[name])), value=value)
                for row in packed_rows
            ]
        )
        for name, value in padding.items()
    }
    masks = [
        segment_attention_mask(segments, implementation, mask_dtype) for segments in columns.pop("segments")
    ]
    return {name: value.to(device) for name, value in {**columns, "attention_mask": torch.cat(masks)}.items()}


@contextmanager
def packed_forwards(
    models: list[torch.nn.Module], batch_ids: torch.Tensor, packed: PackedPairs
) -> Iterator[None]:
    """While open, a forward of any of ``models`` on ``batch_ids`` runs on ``packed`` and returns TRL's layout."""

    def pack_inputs(module, args, kwargs):
        if kwargs.get("input_ids") is not batch_ids:
            return None
        return args, {**kwargs, **packed.model_inputs, "labels": None}

    def unpack_output(module, args, kwargs, output):
        if kwargs.get("input_ids") is not packed.model_inputs["input_ids"]:
            return None
        packed_shape = packed.model_inputs["input_ids"].shape
        for name, value in output.items():  # log_probs and the fused head's other per-token fields
            if isinstance(value, torch.Tensor) and value.shape[:2] == packed_shape:
                output[name] = packed.unpack(value)
        return output

    with ExitStack() as hooks:
        for model in {id(model): model for model in models}.values():
            hooks.callback(model.register_forward_pre_hook(pack_inputs, with_kwargs=True).remove)
            hooks.callback(model.register_forward_hook(unpack_output, with_kwargs=True).remove)
        yield


class SharedPromptDPOTrainer(DPOTrainer):
    """DPOTrainer whose forwards run each pair's prompt once (see the module's docstring)."""

    def _compute_loss(self, model, inputs, return_outputs):
        with self._packed(model, inputs):
            return super()._compute_loss(model, inputs, return_outputs)

    def compute_ref_log_probs(self, model, inputs):
        with self._packed(model, inputs):
            return super().compute_ref_log_probs(model, inputs)

    @contextmanager
    def _packed(self, model, inputs) -> Iterator[None]:
        unwrapped = self.accelerator.unwrap_model(model)  # DDP and the like hide the config
        implementation = getattr(unwrapped.config, "_attn_implementation", None)
        packed = None
        if implementation in MASKABLE_ATTENTION and not self.aux_loss_enabled:
            mask_dtype = unwrapped.get_input_embeddings().weight.dtype
            packed = pack_pairs(inputs, implementation, mask_dtype)
        if packed is None:
            yield
            return
        models = [model, self.model] + ([self.ref_model] if self.ref_model is not None else [])
        with packed_forwards(models, inputs["input_ids"], packed):
            yield
