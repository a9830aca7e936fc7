"""Build the tokenizer of ``model=tiny_random`` (agenttune/models/tiny_tokenizer/), so that the tiny test model
needs no converted embedded model: a byte-level BPE trained with the ``tokenizers`` library on CUAD contract text
and Agent Data Protocol trajectories from the data folder, with the ChatML special tokens the tool-calling chat
template uses. Deterministic for the same data; run it again only to change the vocabulary.

    python scripts/build_tiny_tokenizer.py [--data-dir ../shared/data] [--vocab-size 4096]
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import PreTrainedTokenizerFast

from agenttune.config import repo_root
from agenttune.models.tiny import SPECIAL_TOKENS, TOKENIZER_DIR

CONTRACTS = 120  # CUAD contracts read (sorted by name), about 4 MB of text


def corpus(data_dir: Path):
    """Contract text, then every ADP trajectory as JSON (tool calls, observations, chat)."""
    for path in sorted((data_dir / "cuad_v1" / "full_contract_txt").glob("*.txt"))[:CONTRACTS]:
        yield path.read_text(errors="replace")
    for path in sorted((data_dir / "adp_samples").glob("*.json")):
        for trajectory in json.loads(path.read_text()):
            yield json.dumps(trajectory, ensure_ascii=False)


def build(data_dir: Path, vocab_size: int, target: Path) -> None:
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=list(SPECIAL_TOKENS.values()),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(corpus(data_dir), trainer)
    wrapped = PreTrainedTokenizerFast(tokenizer_object=tokenizer, **SPECIAL_TOKENS)
    wrapped.save_pretrained(target)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default_data = os.environ.get("AGENTTUNE_DATA_DIR", str(Path(repo_root()).parent / "shared" / "data"))
    parser.add_argument("--data-dir", type=Path, default=Path(default_data))
    parser.add_argument("--vocab-size", type=int, default=4096)
    args = parser.parse_args()
    build(args.data_dir, args.vocab_size, TOKENIZER_DIR)
    print(f"wrote {TOKENIZER_DIR}")
