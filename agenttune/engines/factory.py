"""``build_engine``: the generation backend named by ``model.engine``."""

from __future__ import annotations

import os
from typing import Any

from agenttune.config import ModelConfig
from agenttune.engines.base import Engine
from agenttune.engines.scripted import Policy

ENGINES = ("transformers", "vllm", "openai", "scripted")


def build_engine(
    model_cfg: ModelConfig,
    model: Any = None,
    tokenizer: Any = None,
    cache_dir: str | os.PathLike | None = None,
    policy: Policy | None = None,
) -> Engine:
    """Build the engine ``model_cfg.engine`` with the config's sampling settings.

    ``transformers`` generates with ``model`` and ``tokenizer`` (loaded from ``cache_dir`` when not given);
    ``vllm`` loads a model folder itself: the one ``model``'s current weights were loaded from or last saved
    to (see :func:`saved_weights`), else the config's; ``openai`` talks to ``model.engine_url``; ``scripted`` wraps
    ``policy`` (token-exact when ``tokenizer`` is given).
    """
    sampling = {
        "max_new_tokens": model_cfg.max_new_tokens,
        "temperature": model_cfg.temperature,
        "top_p": model_cfg.top_p,
    }
    if model_cfg.engine == "scripted":
        if policy is None:
            raise ValueError("engine=scripted needs a policy callable: build_engine(cfg, policy=fn)")
        from agenttune.engines.scripted import ScriptedEngine

        return ScriptedEngine(policy, tokenizer)
    if model_cfg.engine == "openai":
        from agenttune.engines.openai_engine import OpenAIEngine

        return OpenAIEngine(
            model_cfg.engine_model or model_cfg.name, base_url=model_cfg.engine_url, **sampling
        )
    if model_cfg.engine not in ("transformers", "vllm"):
        raise ValueError(f"model.engine={model_cfg.engine!r}: choose one of {ENGINES}")
    from agenttune.models import load_model, load_tokenizer

    if tokenizer is None:
        if cache_dir is None:
            raise ValueError(f"engine={model_cfg.engine} needs a tokenizer, or cache_dir to load it")
        tokenizer = load_tokenizer(model_cfg, cache_dir)
    if model_cfg.engine == "vllm":
        from agenttune.engines.vllm_engine import VLLMEngine
        from agenttune.models.loading import resolve_path

        if model is not None:
            path = saved_weights(model)
        else:
            path = resolve_path(model_cfg, cache_dir) if cache_dir is not None else model_cfg.path
        return VLLMEngine(path, tokenizer, dtype=model_cfg.dtype, **sampling)
    from agenttune.engines.transformers_engine import TransformersEngine

    if model is None:
        if cache_dir is None:
            raise ValueError("engine=transformers needs a model, or cache_dir to load it")
        model = load_model(model_cfg, cache_dir)
    return TransformersEngine(
        model,
        tokenizer,
        compute_dtype=model_cfg.compute_dtype,
        extractive_answers=model_cfg.extractive_answers,
        max_concurrent=model_cfg.max_concurrent,
        **sampling,
    )


def saved_weights(model: Any) -> str:
    """The folder (or hub id) holding ``model``'s current weights, for an engine that loads weights itself (vLLM).

    ``from_pretrained`` records it as ``config.name_or_path`` and the pipelines' ``train_policy`` points it at
    the final checkpoint it saves. A LoRA model's checkpoint holds only the adapter, which the vLLM engine does
    not load: that is an error rather than a silent evaluation of the base weights.
    """
    if hasattr(model, "peft_config"):
        raise ValueError(
            "engine=vllm loads full weights from disk, but this policy is a LoRA adapter on its base model: "
            "use model.engine=transformers for it, or train without LoRA (model.lora.enabled=false)"
        )
    path = model.config.name_or_path
    if not path:
        raise ValueError(
            "engine=vllm needs a policy loaded from or saved to a folder (or a hub id); this one was not"
        )
    return path
