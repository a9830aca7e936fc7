"""build_engine picks the backend named by model.engine."""

from __future__ import annotations

import importlib.util
from dataclasses import replace

import pytest

from agenttune.engines import build_engine
from agenttune.engines.factory import saved_weights
from agenttune.engines.openai_engine import OpenAIEngine
from agenttune.engines.scripted import ScriptedEngine
from agenttune.engines.transformers_engine import TransformersEngine


def test_each_engine_from_config(tiny_model_config, tiny_model, tokenizer):
    engine = build_engine(replace(tiny_model_config, temperature=0.0), tiny_model, tokenizer)
    assert isinstance(engine, TransformersEngine) and engine.token_exact and engine.temperature == 0.0
    scripted = build_engine(
        replace(tiny_model_config, engine="scripted"), tokenizer=tokenizer, policy=lambda c, t: ""
    )
    assert isinstance(scripted, ScriptedEngine) and scripted.token_exact
    remote = build_engine(replace(tiny_model_config, engine="openai", engine_url="http://127.0.0.1:9/v1"))
    assert isinstance(remote, OpenAIEngine) and remote.model == "tiny_random" and not remote.token_exact


def test_configuration_errors(tiny_model_config):
    with pytest.raises(ValueError, match="policy"):
        build_engine(replace(tiny_model_config, engine="scripted"))
    with pytest.raises(ValueError, match="choose one of"):
        build_engine(replace(tiny_model_config, engine="tgi"))
    with pytest.raises(ValueError, match="cache_dir"):
        build_engine(tiny_model_config)
    with pytest.raises(ValueError, match="needs a model"):
        build_engine(tiny_model_config, tokenizer=object())


@pytest.mark.skipif(importlib.util.find_spec("vllm") is not None, reason="vLLM is installed")
def test_vllm_without_the_package_names_the_gpu_extra(tiny_model_config, tokenizer):
    with pytest.raises(ImportError, match=r"\.\[gpu\]"):
        build_engine(replace(tiny_model_config, engine="vllm"), tokenizer=tokenizer)


def test_vllm_loads_the_folder_of_the_current_weights(tiny_model, tmp_path):
    tiny_model.save_pretrained(tmp_path)
    tiny_model.config.name_or_path = str(tmp_path)  # what train_policy does after saving the final checkpoint
    assert saved_weights(tiny_model) == str(tmp_path)
    tiny_model.config.name_or_path = ""
    with pytest.raises(ValueError, match="loaded from or saved to a folder"):
        saved_weights(tiny_model)


def test_vllm_refuses_a_lora_policy_rather_than_evaluating_its_base(tiny_model):
    from peft import LoraConfig, get_peft_model

    lora = get_peft_model(tiny_model, LoraConfig(r=2, target_modules=["q_proj"]))
    with pytest.raises(ValueError, match="LoRA adapter"):
        saved_weights(lora)
