"""``algorithm.trl`` reaches the TRL config unchanged; an unknown option fails with TRL's error, naming it, when the
trainer is built (before any training step); an option the typed fields already set, and any option for the
project's PPO loop, are refused."""

from __future__ import annotations

import pytest
from calculator_rollouts import calculator_rollouts
from test_algorithms_on_cpu import ALGORITHM_DATA, length_reward, tiny_algorithm, unpaired_rows

from agenttune.training import TrainingData, algorithm_info, build_trainer


def build(name, tiny_model, tokenizer, tmp_path, trl, data=None, **kwargs):
    """A trainer for ``name`` with ``algorithm.trl=trl`` (GRPO and RLOO with beta 0: the tiny model has no path)."""
    on_policy = algorithm_info(name).on_policy
    algorithm = tiny_algorithm(name, trl=trl, **({"beta": 0.0} if on_policy else {}))
    if on_policy and "rollouts" not in kwargs:
        kwargs["reward_funcs"] = [length_reward]
    data = data or ALGORITHM_DATA[name](tokenizer)
    return build_trainer(algorithm, tiny_model, tokenizer, data, str(tmp_path), **kwargs)


@pytest.mark.parametrize("name", list(ALGORITHM_DATA))
def test_pass_through_reaches_the_trl_config_on_cpu(name, tiny_model, tokenizer, tmp_path):
    trainer = build(name, tiny_model, tokenizer, tmp_path, {"max_grad_norm": 0.25, "weight_decay": 0.01})
    assert (trainer.args.max_grad_norm, trainer.args.weight_decay) == (0.25, 0.01)
    assert trainer.args.learning_rate == 1e-2  # the typed fields still apply


@pytest.mark.parametrize("name", ["grpo", "rloo"])
def test_sampling_options_pass_through_with_episode_rollouts_on_cpu(name, tiny_model, tokenizer, tmp_path):
    """rloo's episodes train through GRPOTrainer: its options go to GRPOConfig."""
    trl = {"top_k": 20, "mask_truncated_completions": True}
    trainer = build(
        name, tiny_model, tokenizer, tmp_path, trl, TrainingData(), rollouts=calculator_rollouts(tokenizer)
    )
    assert (type(trainer.args).__name__, trainer.args.top_k, trainer.args.mask_truncated_completions) == (
        "GRPOConfig",
        20,
        True,
    )


def test_unpaired_bco_passes_options_to_its_kto_config_on_cpu(tiny_model, tokenizer, tmp_path):
    data = TrainingData(unpaired=unpaired_rows())
    trainer = build("bco", tiny_model, tokenizer, tmp_path, {"max_grad_norm": 0.25}, data)
    assert (type(trainer.args).__name__, trainer.args.max_grad_norm) == ("KTOConfig", 0.25)


@pytest.mark.parametrize("name", list(ALGORITHM_DATA))
def test_unknown_option_fails_with_trls_error_naming_it_on_cpu(name, tiny_model, tokenizer, tmp_path):
    with pytest.raises(TypeError, match="top_kk"):
        build(name, tiny_model, tokenizer, tmp_path, {"top_kk": 20})


@pytest.mark.parametrize(
    ("name", "key"), [("grpo", "num_generations"), ("dpo", "beta"), ("sft", "report_to")]
)
def test_option_the_project_sets_is_refused_naming_it_on_cpu(name, key, tiny_model, tokenizer, tmp_path):
    with pytest.raises(ValueError, match=f"algorithm.trl sets \\['{key}'\\]"):
        build(name, tiny_model, tokenizer, tmp_path, {key: 1})


def test_ppo_refuses_pass_through_options_on_cpu(tiny_model, tokenizer, tmp_path):
    algorithm = tiny_algorithm("ppo", trl={"top_k": 20})
    with pytest.raises(ValueError, match="ppo is the project's own loop"):
        build_trainer(
            algorithm,
            tiny_model,
            tokenizer,
            TrainingData(),
            str(tmp_path),
            rollouts=calculator_rollouts(tokenizer),
        )
