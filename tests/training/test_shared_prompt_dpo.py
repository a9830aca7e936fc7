"""The shared-prompt DPO forwards give TRL's loss, reference log-probabilities and gradients."""

from __future__ import annotations

import pytest
import torch
from test_algorithms_on_cpu import preference_rows, tiny_algorithm
from trl import DPOTrainer
from trl.trainer.dpo_trainer import DataCollatorForPreference

from agenttune.training import TrainingData, build_trainer
from agenttune.training.shared_prompt_dpo import SharedPromptDPOTrainer, pack_pairs

PAD = 0


def preference_batch(vocab: int, lengths: list[tuple[int, int, int]]) -> dict[str, torch.Tensor]:
    """TRL's collated batch of pairs with (prompt, chosen, rejected) token counts ``lengths``."""
    generator = torch.Generator().manual_seed(0)

    def ids(count: int) -> list[int]:
        return torch.randint(3, vocab, (count,), generator=generator).tolist()

    examples = [
        {"prompt_ids": ids(prompt), "chosen_ids": ids(chosen), "rejected_ids": ids(rejected)}
        for prompt, chosen, rejected in lengths
    ]
    return DataCollatorForPreference(pad_token_id=PAD)(examples)


def loss_metrics_and_gradients(trainer, compute_loss, batch):
    """The loss, the metrics TRL logs for it, the gradients, and the (rows, tokens) each forward embedded."""
    trainer.model.zero_grad()
    trainer._metrics["train"].clear()
    embedded = []
    hook = trainer.model.get_input_embeddings().register_forward_hook(
        lambda module, args, output: embedded.append(tuple(args[0].shape))
    )
    loss = compute_loss(trainer, trainer.model, batch, return_outputs=False)
    hook.remove()
    loss.backward()
    gradients = {name: p.grad.clone() for name, p in trainer.model.named_parameters() if p.grad is not None}
    return loss.detach(), dict(trainer._metrics["train"]), gradients, embedded


def dpo_trainer(tiny_model, tokenizer, tmp_path, lora: bool, **overrides):
    from peft import LoraConfig

    adapters = LoraConfig(r=4, target_modules=["q_proj", "v_proj"], init_lora_weights=False) if lora else None
    trainer = build_trainer(
        tiny_algorithm("dpo", **overrides),
        tiny_model,
        tokenizer,
        TrainingData(preferences=preference_rows()),
        str(tmp_path),
        peft_config=adapters,
    )
    assert isinstance(trainer, SharedPromptDPOTrainer)
    trainer.model.train()
    return trainer


@pytest.mark.parametrize(
    ("attention", "lora", "loss", "checkpointing"),
    [
        ("sdpa", True, "sigmoid", True),
        ("sdpa", True, "sigmoid", False),
        ("eager", True, "sigmoid", False),
        ("sdpa", False, "sigmoid", False),
        ("sdpa", True, "ipo", False),
    ],
)
def test_shared_prompt_loss_equals_trls_on_cpu(
    tiny_model, tokenizer, tmp_path, attention, lora, loss, checkpointing
):
    tiny_model.config._attn_implementation = attention
    trainer = dpo_trainer(tiny_model, tokenizer, tmp_path, lora, preference_loss=loss)
    if checkpointing:  # what Trainer.train does first (DPOConfig's default)
        trainer.model.activation_checkpointing_enable(
            activation_checkpointing_kwargs={"use_reentrant": False}
        )
    # a batch whose policy differs from its reference, so the loss and its gradient are not at their start values
    with torch.no_grad():
        for parameter in trainer.model.parameters():
            if parameter.requires_grad:
                parameter.add_(0.05 * torch.randn_like(parameter))
    batch = preference_batch(tiny_model.config.vocab_size, [(7, 3, 5), (4, 6, 1)])

    shared = loss_metrics_and_gradients(trainer, SharedPromptDPOTrainer._compute_loss, batch)
    trl = loss_metrics_and_gradients(trainer, DPOTrainer._compute_loss, batch)

    # each forward (the policy's; the reference's too where it is the policy with its adapter off) ran on 2 packed
    # rows, the longer 6 + (1 + 3) + (1 + 5) tokens, against TRL's 4 rows of up to 7 + 5
    assert shared[3] == [(2, 16)] * len(trl[3]) and trl[3] == [(4, 12)] * (2 if lora else 1)
    torch.testing.assert_close(shared[0], trl[0], atol=1e-5, rtol=1e-4)
    assert shared[1].keys() == trl[1].keys() and "rewards/margins" in trl[1]
    for name, values in trl[1].items():
        if name != "num_tokens":  # a running total over the trainer's calls
            torch.testing.assert_close(
                torch.tensor(shared[1][name]), torch.tensor(values), atol=1e-5, rtol=1e-4, msg=name
            )
    assert shared[2].keys() == trl[2].keys() and trl[2]
    for name, gradient in trl[2].items():
        torch.testing.assert_close(shared[2][name], gradient, atol=1e-5, rtol=1e-4, msg=name)
    assert any(bool(gradient.abs().sum() > 0) for gradient in shared[2].values())

    shared_reference = SharedPromptDPOTrainer.compute_ref_log_probs(trainer, trainer.model, batch)
    trl_reference = DPOTrainer.compute_ref_log_probs(trainer, trainer.model, batch)
    for packed, full in zip(shared_reference, trl_reference, strict=True):
        torch.testing.assert_close(packed, full, atol=1e-5, rtol=1e-4)


def test_a_pair_is_one_row_and_its_completions_go_back_where_trl_reads_them():
    batch = preference_batch(50, [(3, 2, 1), (2, 1, 3)])
    packed = pack_pairs(batch, "sdpa", torch.float32)
    assert packed.model_inputs["input_ids"].shape[0] == 2  # one row a pair
    assert packed.model_inputs["attention_mask"].shape == (2, 1, 7, 7)  # prompt 3 + (1 + 2) + (1 + 1) tokens
    log_probs = torch.arange(14, dtype=torch.float32).reshape(2, 7) + 1
    unpacked = packed.unpack(log_probs)
    # TRL's rows: [chosen_1, chosen_2, rejected_1, rejected_2], 5 tokens wide; log-prob t scores token t + 1
    assert unpacked.tolist() == [
        [0, 0, 3, 4],  # chosen_1 (prompt 3): packed positions 2, 3
        [0, 9, 0, 0],  # chosen_2 (prompt 2): packed position 1
        [0, 0, 6, 0],  # rejected_1: after chosen_1's segment (positions 2-4), at 5
        [0, 11, 12, 13],  # rejected_2: after chosen_2's segment (positions 1-2), at 3-5
    ]


def test_a_pair_whose_completion_was_truncated_away_is_not_packed():
    batch = preference_batch(50, [(3, 2, 1), (2, 1, 3)])
    batch["completion_mask"][1] = 0  # as the collator leaves it when max_length cuts inside the prompt
    assert pack_pairs(batch, "sdpa", torch.float32) is None
