"""Two training steps of every algorithm on the tiny random model: every trainable parameter must move.

The tiny model ties its input embeddings to the LM head, whose gradient reaches every vocabulary row through the
softmax, so no parameter is exempt (TRL's own tests exempt embedding rows of unseen tokens when weights are not
tied).
"""

from __future__ import annotations

import dataclasses

import pytest
import torch
from calculator_rollouts import calculator_rollouts
from datasets import Dataset

from agenttune.config import AlgorithmConfig
from agenttune.training import MetricsCallback, TrainingData, algorithm_info, build_trainer, train

PROMPTS = ["What is 2+2?", "Name a colour.", "Say hi.", "Count to three."]


def conversation(text: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": text}]


def length_reward(completions, **kwargs) -> list[float]:
    """Longer answers score higher (gives the tiny random policy a varied signal)."""
    return [float(len(completion[-1]["content"])) for completion in completions]


def prompt_rows() -> Dataset:
    return Dataset.from_dict(
        {"prompt": [conversation(text) for text in PROMPTS], "topic": ["a", "b", "c", "d"]}
    )


def preference_rows() -> Dataset:
    return Dataset.from_dict(
        {
            "prompt": [conversation(text) for text in PROMPTS],
            "chosen": [[{"role": "assistant", "content": "A good answer."}]] * 4,
            "rejected": [[{"role": "assistant", "content": "No."}]] * 4,
        }
    )


def unpaired_rows() -> Dataset:
    return Dataset.from_dict(
        {
            "prompt": [conversation(text) for text in PROMPTS],
            "completion": [
                [{"role": "assistant", "content": text}] for text in ["Four.", "No.", "Hi!", "Nope."]
            ],
            "reward": [1.0, 0.0, 0.8, 0.1],
        }
    )


def sft_rows(tokenizer) -> Dataset:
    """Weighted rows as the events projection makes them: the prompt weighs 0, the answer 1."""
    rows = {"input_ids": [], "weights": []}
    for text in PROMPTS:
        prompt = tokenizer.apply_chat_template(
            conversation(text), add_generation_prompt=True, return_dict=False
        )
        answer = tokenizer("Sure, here it is.<|im_end|>")["input_ids"]
        rows["input_ids"].append(prompt + answer)
        rows["weights"].append([0.0] * len(prompt) + [1.0] * len(answer))
    return Dataset.from_dict(rows)


ALGORITHM_DATA = {
    "grpo": lambda tokenizer: TrainingData(prompts=prompt_rows()),
    "rloo": lambda tokenizer: TrainingData(prompts=prompt_rows()),
    "dpo": lambda tokenizer: TrainingData(preferences=preference_rows()),
    "bco": lambda tokenizer: TrainingData(preferences=preference_rows()),
    "kto": lambda tokenizer: TrainingData(unpaired=unpaired_rows()),
    "sft": lambda tokenizer: TrainingData(sft=sft_rows(tokenizer)),
}


def tiny_algorithm(name: str, **overrides) -> AlgorithmConfig:
    """``name``'s typed config, sized for the tiny model (the sizes its schema has)."""
    schema = algorithm_info(name).config
    sizes = dict(num_generations=2, max_completion_length=8, max_length=64, beta=0.1)
    fields = {field.name for field in dataclasses.fields(schema)}
    values = dict(name=name, learning_rate=1e-2, max_steps=2, per_device_batch_size=2, save_steps=100)
    values |= {key: value for key, value in sizes.items() if key in fields}
    return schema(**{**values, **overrides})


def snapshot(model) -> dict[str, torch.Tensor]:
    return {name: p.detach().clone() for name, p in model.named_parameters() if p.requires_grad}


def assert_all_changed(before: dict[str, torch.Tensor], model) -> None:
    after = dict(model.named_parameters())
    unchanged = [name for name, value in before.items() if torch.equal(value, after[name].detach().cpu())]
    assert not unchanged, f"parameters that did not change: {unchanged}"


def run_two_steps(algorithm, tiny_model, tokenizer, data, tmp_path, **kwargs):
    logged = []
    before = snapshot(tiny_model)
    trainer = build_trainer(
        algorithm,
        tiny_model,
        tokenizer,
        data,
        str(tmp_path),
        callbacks=[MetricsCallback(lambda metrics, step: logged.append((step, metrics)))],
        **kwargs,
    )
    train(trainer)
    assert trainer.state.global_step == 2
    assert [step for step, _ in logged if "loss" in _ or "policy_loss" in _][:2] == [1, 2]
    assert_all_changed(before, trainer.model)
    return logged


@pytest.mark.parametrize("name", list(ALGORITHM_DATA))
def test_two_steps_change_every_parameter_on_cpu(name, tiny_model, tokenizer, tmp_path):
    data = ALGORITHM_DATA[name](tokenizer)
    on_policy = algorithm_info(name).on_policy
    # GRPO/RLOO with beta > 0 reload a reference from the model's path, which the tiny model has not
    algorithm = tiny_algorithm(name, **({"beta": 0.0} if on_policy else {}))
    reward_funcs = [length_reward] if on_policy else None
    run_two_steps(algorithm, tiny_model, tokenizer, data, tmp_path, reward_funcs=reward_funcs)


@pytest.mark.parametrize("name", ["grpo", "rloo", "ppo"])
def test_episode_rollouts_train_every_parameter_on_cpu(name, tiny_model, tokenizer, tmp_path):
    """Multi-turn on-policy training through the episode loop: every parameter moves, each step's episodes are on
    disk and the reward components are logged."""
    rollouts = calculator_rollouts(tokenizer, log_dir=tmp_path / "eventlogs" / "train")
    algorithm = tiny_algorithm(name, beta=0.0 if name != "ppo" else 0.1)
    logged = run_two_steps(algorithm, tiny_model, tokenizer, TrainingData(), tmp_path, rollouts=rollouts)
    metrics = {key for _, step_metrics in logged for key in step_metrics}
    assert {
        "reward/total",
        "reward/correct",
        "reward/length",
        "episodes/failed",
        "episodes/tool_calls",
    } <= metrics
    assert sorted(p.name for p in (tmp_path / "eventlogs" / "train").iterdir()) == [
        "step-0.jsonl",
        "step-1.jsonl",
    ]
    if name == "ppo":
        assert {"policy_loss", "value_loss", "kl", "reward"} <= set(logged[-1][1])


def test_bco_unpaired_on_cpu(tiny_model, tokenizer, tmp_path):
    run_two_steps(
        tiny_algorithm("bco"), tiny_model, tokenizer, TrainingData(unpaired=unpaired_rows()), tmp_path
    )


@pytest.mark.parametrize("name", ["sft", "grpo", "ppo"])
def test_bf16_mixed_precision_on_cpu_trains_float32_weights_with_bf16_matmuls(
    name, tiny_model, tokenizer, tmp_path
):
    """``algorithm.bf16=true`` on a CPU: the linear layers compute in bfloat16 (autocast) while the weights they
    update stay float32."""
    dtypes = set()
    hook = tiny_model.model.layers[0].mlp.down_proj.register_forward_hook(
        lambda module, inputs, output: dtypes.add(output.dtype) if torch.is_grad_enabled() else None
    )
    data, options = ALGORITHM_DATA[name](tokenizer) if name in ALGORITHM_DATA else TrainingData(), {}
    if name == "ppo":
        options = {"rollouts": calculator_rollouts(tokenizer, log_dir=tmp_path / "eventlogs")}
    elif (
        name == "grpo"
    ):  # beta 0: a reference would be reloaded from the model's path, which the tiny model lacks
        options = {"reward_funcs": [length_reward]}
    algorithm = tiny_algorithm(name, bf16=True, **({"beta": 0.0} if name == "grpo" else {}))
    run_two_steps(algorithm, tiny_model, tokenizer, data, tmp_path, **options)
    hook.remove()
    assert dtypes == {torch.bfloat16}
    assert {p.dtype for p in tiny_model.parameters()} == {torch.float32}
