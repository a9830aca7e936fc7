"""The GPU configurations (vLLM engine, 4-bit QLoRA), run when a CUDA GPU is present (``pytest -m gpu``).

Without one they are skipped, with the reason.

Nothing downloads at test time: a hub model runs only when its weights are already in the Hugging Face cache.
"""

from __future__ import annotations

import pytest
import torch

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU"),
]


def require_cached(repo_id: str) -> None:
    from huggingface_hub import try_to_load_from_cache

    if not isinstance(try_to_load_from_cache(repo_id, "config.json"), str):
        pytest.skip(f"{repo_id} is not in the Hugging Face cache (nothing downloads at test time)")


def test_cuad_grpo_with_a_hub_model_and_the_vllm_engine(run_pipeline):
    pytest.importorskip("vllm", reason="engine=vllm needs the gpu extra")
    require_cached("Qwen/Qwen3-0.6B")
    _, summary = run_pipeline(
        [
            "+experiment=cuad_grpo",
            "model=qwen3_0_6b",
            "warm_start.enabled=false",
            "benchmark.num_train=2",
            "benchmark.num_eval=4",
            "algorithm.max_steps=2",
        ]
    )
    assert summary["status"] == "completed", summary["error"]
    metrics = summary["metrics"]
    assert metrics["train/global_step"] == 2
    assert metrics["eval_after/questions"] == 4 and "eval_after/hit@8" in metrics


def test_qlora_dpo_trains_the_embedded_model(run_pipeline):
    pytest.importorskip("bitsandbytes", reason="model.quantization=nf4 needs the qlora extra")
    _, summary = run_pipeline(
        [
            "+experiment=smoke",
            "algorithm=dpo",
            "model.quantization=nf4",  # 4-bit NF4, double quantisation, LoRA r16 on q/k/v/o/gate/up/down
            "benchmark.num_train=2",
            "benchmark.max_prompt_turns=1",
            "algorithm.max_length=512",
        ]
    )
    assert summary["status"] == "completed", summary["error"]
    assert summary["metrics"]["train/global_step"] == 2
