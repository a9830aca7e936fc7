"""vLLM generation on a GPU, token-exact: prompts go in as token ids rendered by the project's chat template.

``import vllm`` happens inside the constructor, so the rest of the project runs without it; a missing install
fails with a message naming the ``gpu`` extra. Each chosen token's logprob comes from ``SamplingParams(logprobs=1)``
(vLLM always includes the sampled token in a step's logprob dict).
"""

from __future__ import annotations

from typing import Any

from agenttune.engines.base import Engine, Generation, Message
from agenttune.engines.templates import stop_token_ids


class VLLMEngine(Engine):
    token_exact = True

    def __init__(
        self,
        model_path: str,
        tokenizer: Any,
        dtype: str = "bfloat16",
        max_new_tokens: int = 128,
        temperature: float = 0.7,
        top_p: float = 1.0,
        **llm_kwargs: Any,
    ) -> None:
        try:
            import vllm
        except ImportError as error:
            raise ImportError("engine=vllm needs vLLM and a CUDA GPU: pip install -e '.[gpu]'") from error
        self.tokenizer = tokenizer
        self.stop_ids = stop_token_ids(tokenizer)
        self.llm = vllm.LLM(model=model_path, dtype=dtype, **llm_kwargs)
        self.params = vllm.SamplingParams(
            max_tokens=max_new_tokens,
            temperature=temperature,
            top_p=top_p,
            logprobs=1,
            stop_token_ids=self.stop_ids,
        )

    def sync_weights(self, model: Any) -> None:
        """Copy ``model``'s weights into the vLLM engine (in-process, as TRL's colocate mode does) and drop cached
        prefixes computed with the old ones. A LoRA policy is refused: its adapter would have to be merged first."""
        if hasattr(model, "peft_config"):
            raise ValueError(
                "engine=vllm cannot sync a LoRA policy while training; use model.engine=transformers"
            )
        runner = self.llm.llm_engine.model_executor.driver_worker.model_runner
        runner.model.load_weights(model.state_dict().items())
        self.llm.reset_prefix_cache()

    def generate(
        self,
        conversations: list[list[Message]],
        tools: list[dict[str, Any]] | None = None,
        prompt_ids: list[list[int]] | None = None,
    ) -> list[Generation]:
        prompt_ids = self._prompt_token_ids(conversations, tools, prompt_ids)
        outputs = self.llm.generate(
            [{"prompt_token_ids": list(p)} for p in prompt_ids], sampling_params=self.params, use_tqdm=False
        )
        return [
            self._generation(prompt, output.outputs[0])
            for prompt, output in zip(prompt_ids, outputs, strict=True)
        ]

    def _generation(self, prompt: list[int], completion: Any) -> Generation:
        ids = list(completion.token_ids)
        logprobs = [step[token].logprob for step, token in zip(completion.logprobs, ids, strict=True)]
        stopped = bool(ids) and ids[-1] in self.stop_ids
        return Generation.from_text(
            self.tokenizer.decode(ids[:-1] if stopped else ids, skip_special_tokens=False),
            prompt_ids=list(prompt),
            completion_ids=ids,
            logprobs=logprobs,
            finish_reason="stop" if stopped else "length",
        )
