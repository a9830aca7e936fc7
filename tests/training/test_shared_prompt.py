"""The shared-prompt loss forward gives TRL's per-token log-probabilities, entropies and gradients."""

from __future__ import annotations

import pytest
import torch
from datasets import Dataset
from test_algorithms_on_cpu import tiny_algorithm
from trl import GRPOTrainer

from agenttune.training import TrainingData, build_trainer
from agenttune.training.shared_prompt import SharedPromptGRPOTrainer, pack_group, segment_attention_mask

PAD = 0


def grouped_batch(vocab: int) -> tuple[torch.Tensor, torch.Tensor, int]:
    """2 prompts (5 and 3 tokens, left-padded to 5) x 3 completions (right-padded to 4), rows interleaved as after
    TRL's shuffle; returns ids, attention mask and the completion width."""
    generator = torch.Generator().manual_seed(0)
    prompts = [
        torch.randint(3, vocab, (5,), generator=generator),
        torch.randint(3, vocab, (3,), generator=generator),
    ]
    lengths = [[4, 2, 3], [1, 4, 0]]
    rows, masks = [], []
    for order in [(0, 0), (1, 0), (0, 1), (1, 1), (1, 2), (0, 2)]:
        prompt, length = prompts[order[0]], lengths[order[0]][order[1]]
        completion = torch.randint(3, vocab, (length,), generator=generator)
        pad_left, pad_right = 5 - len(prompt), 4 - length
        rows.append(
            torch.cat([torch.full((pad_left,), PAD), prompt, completion, torch.full((pad_right,), PAD)])
        )
        masks.append(torch.tensor([0] * pad_left + [1] * (len(prompt) + length) + [0] * pad_right))
    return torch.stack(rows), torch.stack(masks), 4


def logps_and_gradients(trainer, method, ids, mask, width):
    trainer.model.zero_grad()
    logps, entropies, _ = method(trainer, trainer.model, ids, mask, width, compute_entropy=True)
    (logps * mask[:, -width:]).sum().backward()
    gradients = {name: p.grad.clone() for name, p in trainer.model.named_parameters() if p.grad is not None}
    return logps.detach(), entropies.detach(), gradients


@pytest.mark.parametrize(
    ("attention", "checkpointing", "lora"),
    [
        ("sdpa", True, False),
        ("sdpa", False, False),
        ("eager", True, False),
        ("eager", False, False),
        ("sdpa", True, True),
    ],
)
def test_shared_prompt_forward_equals_trls_on_cpu(
    tiny_model, tokenizer, tmp_path, attention, checkpointing, lora
):
    from peft import LoraConfig

    tiny_model.config._attn_implementation = attention
    algorithm = tiny_algorithm("grpo", beta=0.0, trl={"activation_checkpointing": checkpointing})
    prompts = TrainingData(prompts=Dataset.from_list([{"prompt": "hi"}] * 4))
    unused_reward = lambda completions, **_: [0.0] * len(completions)  # noqa: E731
    adapters = LoraConfig(r=4, target_modules=["q_proj", "v_proj"], init_lora_weights=False) if lora else None
    trainer = build_trainer(
        algorithm,
        tiny_model,
        tokenizer,
        prompts,
        str(tmp_path),
        reward_funcs=[unused_reward],
        peft_config=adapters,
    )
    assert isinstance(trainer, SharedPromptGRPOTrainer)
    if checkpointing:  # what Trainer.train does first
        trainer.model.activation_checkpointing_enable(
            activation_checkpointing_kwargs={"use_reentrant": False}
        )
    trainer.model.train()
    ids, mask, width = grouped_batch(tiny_model.config.vocab_size)

    shared = logps_and_gradients(
        trainer, SharedPromptGRPOTrainer._get_per_token_logps_and_entropies, ids, mask, width
    )
    trl = logps_and_gradients(trainer, GRPOTrainer._get_per_token_logps_and_entropies, ids, mask, width)

    torch.testing.assert_close(shared[0], trl[0], atol=1e-5, rtol=1e-4)
    torch.testing.assert_close(shared[1], trl[1], atol=1e-5, rtol=1e-4)
    assert shared[2].keys() == trl[2].keys() and trl[2]
    for name, gradient in trl[2].items():
        torch.testing.assert_close(shared[2][name], gradient, atol=1e-5, rtol=1e-4, msg=name)
    assert bool((shared[0] != 0).any())


def test_each_segment_sees_the_prompt_and_itself_only():
    packed = pack_group([7, 8, 9], [torch.tensor([4, 5]), torch.tensor([6])])
    assert packed["input_ids"].tolist() == [7, 8, 9, 4, 5, 9, 6]
    assert packed["position_ids"].tolist() == [0, 1, 2, 3, 4, 2, 3]
    assert packed["shift_labels"].tolist() == [-100, -100, 4, 5, -100, 6, -100]
    visible = segment_attention_mask(packed["segments"], "sdpa", torch.float32)[0, 0]
    assert visible[5].tolist() == [
        True,
        True,
        False,
        False,
        False,
        True,
        False,
    ]  # 2nd segment's copy of token 9
    assert visible[4].tolist() == [True, True, True, True, True, False, False]
    additive = segment_attention_mask(packed["segments"], "eager", torch.float32)[0, 0]
    assert torch.equal(additive == 0, visible)
