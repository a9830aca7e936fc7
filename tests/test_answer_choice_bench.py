"""scripts/bench/cuad_answer_choice.py's span scoring: one shared prefix scores as each continuation alone does."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import torch

PATH = Path(__file__).resolve().parents[1] / "scripts" / "bench" / "cuad_answer_choice.py"
spec = importlib.util.spec_from_file_location("cuad_answer_choice", PATH)
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)


def test_a_shared_prefix_scores_each_continuation_as_alone(tiny_model):
    model = tiny_model.float().eval()
    prefix = [5, 17, 99, 3, 250, 41]
    # padded beside longer rows, over two batches
    continuations = [[7], [8, 9, 10, 11], [300, 2], [12, 13, 14]]
    shared = bench.shared_prefix_logprobs(model, prefix, continuations, batch=3)
    for continuation, logprobs in zip(continuations, shared, strict=True):
        alone = bench.continuation_logprobs(model, prefix, continuation)
        assert logprobs.shape == (len(continuation),)
        torch.testing.assert_close(logprobs, alone, atol=1e-5, rtol=1e-5)


def test_sentence_spans_are_runs_of_whole_sentences_of_each_passage():
    shown = [
        "[1] doc_id: A | chars 0-60\nThe term is two   years. It renews\nyearly; notice is due.\n\n"
        "[2] doc_id: B | chars 9-20\nGoverned by New York law."
    ]
    assert bench.sentence_spans(shown, 2) == [
        "The term is two years.",
        "The term is two years. It renews yearly;",
        "It renews yearly;",
        "It renews yearly; notice is due.",
        "notice is due.",
        "Governed by New York law.",
    ]
