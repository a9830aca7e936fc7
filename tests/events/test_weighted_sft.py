"""Weighted SFT: zero-weight tokens get no gradient, weights change the update, two steps move every parameter."""

from __future__ import annotations

import pytest
import torch

from agenttune.training.weighted_sft import (
    WeightedCollator,
    as_weighted_rows,
    build_weighted_sft_trainer,
    predicting_positions,
    weighted_token_loss,
)


def test_collator_pads_ids_and_weights():
    batch = WeightedCollator(pad_token_id=0)(
        [{"input_ids": [5, 6, 7], "weights": [0, 1, 2]}, {"input_ids": [8], "weights": [1]}]
    )
    assert batch["input_ids"].tolist() == [[5, 6, 7], [8, 0, 0]]
    assert batch["attention_mask"].tolist() == [[1, 1, 1], [1, 0, 0]]
    assert batch["weights"].tolist() == [[0, 1, 2], [1, 0, 0]]
    with pytest.raises(ValueError, match="row 0: 1 weights for 2 input_ids"):
        WeightedCollator(pad_token_id=0)([{"input_ids": [1, 2], "weights": [1]}])


def loss_and_logit_grad(model, input_ids, weights):
    logits = model(input_ids=input_ids).logits
    logits.retain_grad()
    loss = weighted_token_loss(logits, input_ids, weights)
    loss.backward()
    return loss.detach(), logits.grad


def test_zero_weight_tokens_get_no_gradient(tiny_model):
    torch.manual_seed(0)
    input_ids = torch.randint(3, 1000, (1, 12))
    weights = torch.tensor([[0, 0, 0, 1, 1, 2, 2, 0, 0, 0, 1, 1]], dtype=torch.float)
    loss, grad = loss_and_logit_grad(tiny_model, input_ids, weights)
    # logits at position t predict token t + 1, so they are trained by weights[t + 1]
    silent = weights[0, 1:] == 0
    assert torch.all(grad[0, :-1][silent] == 0)
    assert torch.all(grad[0, :-1][~silent].abs().sum(-1) > 0)
    assert torch.all(grad[0, -1] == 0)
    # changing the target tokens where the weight is 0 (same logits) leaves the loss unchanged
    targets = input_ids.clone()
    targets[0, 8:10] = (targets[0, 8:10] + 17) % 1000
    with torch.no_grad():
        logits = tiny_model(input_ids=input_ids).logits
        assert torch.equal(
            weighted_token_loss(logits, targets, weights), weighted_token_loss(logits, input_ids, weights)
        )
        targets[0, 4] = (targets[0, 4] + 17) % 1000  # a weighted target does change it
        assert not torch.equal(weighted_token_loss(logits, targets, weights), loss)


def test_logits_at_weighted_positions_only_give_the_same_loss_and_gradients(tiny_model):
    torch.manual_seed(0)
    batch = WeightedCollator(pad_token_id=0)(
        [
            {
                "input_ids": torch.randint(3, 1000, (12,)).tolist(),
                "weights": [0] * 4 + [1] * 3 + [0] * 3 + [2] * 2,
            },
            {"input_ids": torch.randint(3, 1000, (8,)).tolist(), "weights": [0, 1, 1] + [0] * 5},
        ]
    )
    input_ids, mask, weights = batch["input_ids"], batch["attention_mask"], batch["weights"]
    positions = predicting_positions(weights)
    assert positions.tolist() == [0, 1, 3, 4, 5, 9, 10]

    def loss_and_grads(**kept):
        tiny_model.zero_grad()
        logits = tiny_model(
            input_ids=input_ids, attention_mask=mask, logits_to_keep=kept.get("positions", 0)
        ).logits
        loss = weighted_token_loss(logits, input_ids, weights, **kept)
        loss.backward()
        return loss.detach(), {name: p.grad.clone() for name, p in tiny_model.named_parameters()}

    full_loss, full_grads = loss_and_grads()
    kept_loss, kept_grads = loss_and_grads(positions=positions)
    assert torch.allclose(kept_loss, full_loss, atol=1e-6)
    for name, grad in full_grads.items():
        assert torch.allclose(kept_grads[name], grad, atol=1e-6), name


def test_doubling_a_segment_weight_changes_the_update(tiny_model):
    torch.manual_seed(0)
    input_ids = torch.randint(3, 1000, (1, 10))
    weights = torch.tensor([[0, 1, 1, 1, 1, 2, 2, 2, 0, 0]], dtype=torch.float)
    tiny_model.zero_grad()
    loss_and_logit_grad(tiny_model, input_ids, weights)
    base = tiny_model.model.embed_tokens.weight.grad.clone()
    doubled = weights.clone()
    doubled[0, 5:8] *= 2
    tiny_model.zero_grad()
    loss_and_logit_grad(tiny_model, input_ids, doubled)
    assert not torch.allclose(base, tiny_model.model.embed_tokens.weight.grad)


def test_two_training_steps_change_every_parameter(tiny_model, tokenizer, tmp_path):
    from builders import search_episode

    from agenttune.events import replace

    short = replace(search_episode(), tools=[])  # no tool schemas: a short row keeps the test fast
    before = {name: p.detach().clone() for name, p in tiny_model.named_parameters()}
    trainer = build_weighted_sft_trainer(
        tiny_model,
        tokenizer,
        [short],
        {
            "max_steps": 2,
            "per_device_train_batch_size": 1,
            "learning_rate": 1e-2,
            "report_to": [],
            "save_strategy": "no",
            "use_cpu": True,
            "max_length": 1024,
        },  # fmt: skip
        output_dir=str(tmp_path),
        segment_weights={"tool_call": 2.0},
    )
    assert max(trainer.train_dataset[0]["weights"]) == 2.0
    trainer.train()
    assert trainer.state.global_step == 2
    unchanged = [name for name, p in tiny_model.named_parameters() if torch.equal(p, before[name])]
    assert unchanged == []


def test_accumulated_micro_batches_update_like_one_batch(tiny_model, tokenizer, tmp_path):
    """The loss divides by the step's weighted tokens, so a 1-row micro-batch does not weigh like a long one."""
    import copy

    torch.manual_seed(0)
    short = {"input_ids": torch.randint(3, 1000, (6,)).tolist(), "weights": [0, 0, 0, 0, 1, 1]}
    long = {"input_ids": torch.randint(3, 1000, (16,)).tolist(), "weights": [0, 0, 0, 0] + [2.0] * 12}

    def one_step(batch_size: int, accumulation: int, name: str) -> dict[str, torch.Tensor]:
        model = copy.deepcopy(tiny_model)
        trainer = build_weighted_sft_trainer(
            model,
            tokenizer,
            [short, long],
            {
                "max_steps": 1,
                "per_device_train_batch_size": batch_size,
                "gradient_accumulation_steps": accumulation,
                "optim": "sgd",
                "learning_rate": 1.0,
                "max_grad_norm": 0.0,
                "bf16": False,  # autocast rounding differs between a padded batch and its rows
                "report_to": [],
                "save_strategy": "no",
                "use_cpu": True,
            },  # fmt: skip
            output_dir=str(tmp_path / name),
        )
        trainer.train()
        return {n: p.detach() - tiny_model.get_parameter(n).detach() for n, p in model.named_parameters()}

    together, accumulated = one_step(2, 1, "together"), one_step(1, 2, "accumulated")
    assert together["model.embed_tokens.weight"].abs().sum() > 0
    for name, update in together.items():
        assert torch.allclose(update, accumulated[name], atol=1e-6), name


def test_rows_are_cut_to_max_length_and_unweighted_rows_dropped(tokenizer):
    rows = [
        {"input_ids": [1, 2, 3, 4], "weights": [0, 1, 1, 1]},
        {"input_ids": [1, 2, 3, 4], "weights": [0, 0, 0, 1]},
    ]
    cut = as_weighted_rows(rows, tokenizer, None, 3)
    assert cut.to_list() == [{"input_ids": [1, 2, 3], "weights": [0.0, 1.0, 1.0]}]
    with pytest.raises(ValueError, match="no SFT row has a weighted token"):
        as_weighted_rows(rows[1:], tokenizer, None, 3)


def test_rows_keep_their_weights_and_logs_are_projected_with_segment_weights(tokenizer):
    rows = [{"input_ids": [1, 2, 3], "weights": [0.0, 1.0, 2.0], "log_id": "a"}]
    assert as_weighted_rows(rows, tokenizer, {"tool_call": 5.0}, None)[0]["weights"] == [0.0, 1.0, 2.0]
    from builders import search_episode

    from agenttune.events import to_dataset

    projected = as_weighted_rows([search_episode()], tokenizer, {"tool_call": 5.0}, None)
    assert max(projected[0]["weights"]) == 5.0
    assert (
        as_weighted_rows(to_dataset([search_episode()]), tokenizer, {"tool_call": 5.0}, None)[0]
        == projected[0]
    )
