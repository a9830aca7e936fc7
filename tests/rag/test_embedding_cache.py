"""Chunk embeddings are encoded once: a second request, or another corpus sharing chunks, reads them back."""

import numpy as np

from agenttune.rag.embedding_cache import EmbeddingCache


class CountingEncoder:
    """Vectors from text lengths; records every batch it was asked to encode."""

    def __init__(self) -> None:
        self.batches: list[list[str]] = []

    def __call__(self, texts: list[str]) -> np.ndarray:
        self.batches.append(list(texts))
        return np.array([[len(t), 1.0] for t in texts], dtype=np.float32)


def test_vectors_are_encoded_once_in_order_and_persist(tmp_path):
    encoder = CountingEncoder()
    cache = EmbeddingCache(tmp_path, "toy/model")
    first = cache.encode(["a", "bbb", "cc", "a"], encoder, batch_size=2, progress=False)
    assert first[:, 0].tolist() == [1, 3, 2, 1]
    assert encoder.batches == [["bbb", "cc"], ["a"]]  # longest first, duplicates once
    again = EmbeddingCache(tmp_path, "toy/model")  # a new process reads the same file
    assert len(again) == 3
    second = again.encode(["cc", "dddd"], encoder, progress=False)
    assert second[:, 0].tolist() == [2, 4] and encoder.batches[-1] == ["dddd"]
    assert EmbeddingCache(tmp_path, "other").lookup(["x"]) == {}
