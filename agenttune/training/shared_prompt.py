"""GRPO's loss forward with each prompt run once per group instead of once per completion.

A GRPO batch holds ``num_generations`` completions of each prompt. TRL's ``_get_per_token_logps_and_entropies``
runs every row in full, so a prompt of P tokens is encoded ``num_generations`` times, with its gradient. In
multi-turn tool episodes the prompt (system prompt, tool schemas, question) is most of the sequence: on the CUAD
search harness ~1.1k of ~1.2k tokens. Here the rows that share a prompt are packed into one sequence,

    prompt[:-1] | prompt[-1] completion_1 | prompt[-1] completion_2 | ...

with a block attention mask (each segment sees the prompt and itself, causally) and position ids that restart at
the prompt's end in every segment, so each completion token sees exactly the context it sees in its own row. The
last prompt token is repeated per segment because its hidden state predicts each completion's first token. The
packed row goes through the model's forward with TRL's fused LM head (``shift_labels``: every position is scored
against the next token of its own segment), so temperature, entropy and activation checkpointing behave as in
TRL's path. Log-probabilities and gradients equal TRL's up to float rounding (``tests/training/test_shared_prompt.py``).

TRL has no hook for this, so the trainer overrides that one method; it falls back to TRL's own code for anything
the packing does not cover: multimodal inputs, MoE auxiliary losses, attention kernels that take no custom mask
(flash attention), padding that is not left padding of prompts and right padding of completions, and chunks in which
no two rows share a prompt.
"""

from __future__ import annotations

import torch
from trl import GRPOTrainer

MASKABLE_ATTENTION = ("sdpa", "eager")


def prompt_groups(
    prompt_ids: torch.Tensor, prompt_mask: torch.Tensor
) -> dict[tuple[int, ...], list[int]] | None:
    """Row indices by prompt (its unpadded token ids); None when a prompt is not left-padded."""
    groups: dict[tuple[int, ...], list[int]] = {}
    width = prompt_mask.size(1)
    for row, (ids, mask) in enumerate(zip(prompt_ids, prompt_mask, strict=True)):
        length = int(mask.sum())
        if length == 0 or not bool(mask[width - length :].all()):
            return None
        groups.setdefault(tuple(ids[width - length :].tolist()), []).append(row)
    return groups


def right_padded_lengths(completion_mask: torch.Tensor) -> list[int] | None:
    """Each completion's length; None when a completion's mask is not ones then zeros."""
    lengths = completion_mask.sum(dim=1).tolist()
    for mask, length in zip(completion_mask, lengths, strict=True):
        if not bool(mask[:length].all()):
            return None
    return [int(length) for length in lengths]


def pack_group(prompt: list[int], completions: list[torch.Tensor]) -> dict[str, torch.Tensor]:
    """One packed row for a prompt and its completions: ids, positions, next-token labels, segment of each token.

    Segment 0 is ``prompt[:-1]``; segment i (1-based) is ``prompt[-1]`` then completion i. A position's label is the
    next token of its own segment (-100 on the prompt and on each segment's last token).
    """
    head = torch.tensor(prompt[:-1], dtype=torch.long)
    last = torch.tensor(prompt[-1:], dtype=torch.long)
    ids, positions = [head], [torch.arange(len(head))]
    labels, segments = [torch.full_like(head, -100)], [torch.zeros(len(head), dtype=torch.long)]
    for index, completion in enumerate(completions, start=1):
        completion = completion.cpu()
        ids.append(torch.cat([last, completion]))
        positions.append(torch.arange(len(head), len(prompt) + len(completion)))
        labels.append(torch.cat([completion, torch.tensor([-100])]))
        segments.append(torch.full((len(completion) + 1,), index))
    return {
        "input_ids": torch.cat(ids),
        "position_ids": torch.cat(positions),
        "shift_labels": torch.cat(labels),
        "segments": torch.cat(segments),
    }


def segment_attention_mask(segments: torch.Tensor, implementation: str, dtype: torch.dtype) -> torch.Tensor:
    """``(1, 1, L, L)`` mask: a token sees earlier tokens of the prompt (segment 0) and of its own segment.

    sdpa takes booleans (True: attend); eager attention adds the mask to its scores (0 or the dtype's minimum).
    """
    length = len(segments)
    order = torch.arange(length)
    causal = order[None, :] <= order[:, None]
    visible = causal & ((segments[None, :] == 0) | (segments[None, :] == segments[:, None]))
    if implementation == "sdpa":
        return visible[None, None]
    return torch.zeros(length, length, dtype=dtype).masked_fill(~visible, torch.finfo(dtype).min)[None, None]


class SharedPromptGRPOTrainer(GRPOTrainer):
    """GRPOTrainer whose per-token log-probabilities run each group's prompt once (see the module's docstring)."""

    def _get_per_token_logps_and_entropies(
        self,
        model,
        input_ids,
        attention_mask,
        logits_to_keep,
        batch_size=None,
        compute_entropy=False,
        compute_aux_loss=False,
        **multimodal,
    ):
        unwrapped = self.accelerator.unwrap_model(model)  # DDP and the like hide the config
        implementation = getattr(unwrapped.config, "_attn_implementation", None)
        mask_dtype = unwrapped.get_input_embeddings().weight.dtype
        if (
            compute_aux_loss
            or any(value is not None for value in multimodal.values())
            or (implementation not in MASKABLE_ATTENTION)
        ):
            return super()._get_per_token_logps_and_entropies(
                model,
                input_ids,
                attention_mask,
                logits_to_keep,
                batch_size,
                compute_entropy,
                compute_aux_loss,
                **multimodal,
            )
        batch_size = batch_size or input_ids.size(0)
        chunks = [
            self._shared_prompt_chunk(
                model,
                input_ids[start : start + batch_size],
                attention_mask[start : start + batch_size],
                logits_to_keep,
                compute_entropy,
                implementation,
                mask_dtype,
            )
            for start in range(0, input_ids.size(0), batch_size)
        ]
        logps = torch.cat([chunk[0] for chunk in chunks])
        entropies = torch.cat([chunk[1] for chunk in chunks]) if compute_entropy else None
        return logps, entropies, None

    def _shared_prompt_chunk(
        self, model, input_ids, attention_mask, logits_to_keep, compute_entropy, implementation, mask_dtype
    ):
        prompt_width = input_ids.size(1) - logits_to_keep
        groups = prompt_groups(input_ids[:, :prompt_width], attention_mask[:, :prompt_width])
        lengths = right_padded_lengths(attention_mask[:, prompt_width:])
        if groups is None or lengths is None or len(groups) == input_ids.size(0):
            logps, entropies, _ = super()._get_per_token_logps_and_entropies(
                model, input_ids, attention_mask, logits_to_keep, compute_entropy=compute_entropy
            )
            return logps, entropies
        completions = input_ids[:, prompt_width:]
        device = input_ids.device
        logps_rows, entropy_rows = {}, {}
        for prompt, rows in groups.items():
            packed = pack_group(list(prompt), [completions[row, : lengths[row]] for row in rows])
            mask = segment_attention_mask(packed["segments"], implementation, mask_dtype)
            with self.accelerator.autocast():
                outputs = model(
                    input_ids=packed["input_ids"][None].to(device),
                    attention_mask=mask.to(device),
                    position_ids=packed["position_ids"][None].to(device),
                    shift_labels=packed["shift_labels"][None].to(device),
                    fused_lm_head=True,
                )
            start = len(prompt) - 1
            for row in rows:
                end = start + lengths[row]
                logps_rows[row] = outputs.log_probs[0, start:end]
                if compute_entropy:
                    entropy_rows[row] = outputs.entropy[0, start:end]
                start = end + 1
        rows = range(input_ids.size(0))
        logps = torch.stack([pad_to(logps_rows[row], logits_to_keep) for row in rows])
        entropies = (
            torch.stack([pad_to(entropy_rows[row], logits_to_keep) for row in rows])
            if compute_entropy
            else None
        )
        return logps, entropies


def pad_to(values: torch.Tensor, width: int) -> torch.Tensor:
    """``values`` followed by zeros up to ``width`` (TRL's value at padded completion positions)."""
    return torch.cat([values, values.new_zeros(width - len(values))])
