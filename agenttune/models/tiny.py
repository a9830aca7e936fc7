"""The tiny random test model (``model=tiny_random``): a 2-layer Llama built from config on the project's own small
tokenizer, so nothing is downloaded or converted.

The tokenizer (:data:`TOKENIZER_DIR`) is a 4,096-token byte-level BPE that ``scripts/build_tiny_tokenizer.py``
trained with the ``tokenizers`` library on CUAD contract text and ADP trajectories; it has the ChatML special tokens
of the tool-calling chat template (:data:`SPECIAL_TOKENS`), and byte-level pieces encode any text losslessly.
"""

from __future__ import annotations

from pathlib import Path

TOKENIZER_DIR = Path(__file__).with_name("tiny_tokenizer")
SPECIAL_TOKENS = {
    "unk_token": "<|endoftext|>",
    "bos_token": "<|im_start|>",
    "eos_token": "<|im_end|>",
    "pad_token": "<|im_end|>",
}


def tiny_random_model(tokenizer, hidden_size: int = 64, num_layers: int = 2, seed: int = 0):
    """A random Llama over ``tokenizer``'s vocabulary, its special token ids taken from the tokenizer."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(seed)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=hidden_size,
        intermediate_size=hidden_size * 2,
        num_hidden_layers=num_layers,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=4096,
        tie_word_embeddings=True,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    model = LlamaForCausalLM(config)
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    return model
