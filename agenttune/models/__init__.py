"""Loading models and tokenizers: the embedded default, a tiny random model, hub ids and local paths."""

from agenttune.models.loading import load_model, load_tokenizer

__all__ = ["load_model", "load_tokenizer"]
