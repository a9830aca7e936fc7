"""Batched local generation with transformers: all conversations of a turn in one left-padded ``generate`` call.

Sampling is chosen by ``temperature`` (0 means greedy) and ``top_p``; generation stops at the tokenizer's
stop tokens (eos, ``<|im_end|>``) or after ``max_new_tokens``. Each chosen token's logprob is
``log_softmax(raw_logits / T)`` at that step (T = 1 when greedy), the convention TRL uses to score completions,
so the logged values are comparable with the trainer's.
"""

from __future__ import annotations

from typing import Any

import torch
from transformers import GenerationConfig

from agenttune.engines.base import Engine, Generation, Message
from agenttune.engines.templates import stop_token_ids


class TransformersEngine(Engine):
    token_exact = True

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        max_new_tokens: int = 128,
        temperature: float = 0.7,
        top_p: float = 1.0,
    ) -> None:
        self.model = model
        self.tokenizer = tokenizer
        self.stop_ids = stop_token_ids(tokenizer)
        self.pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else self.stop_ids[0]
        self.temperature = temperature
        sample = temperature > 0
        self.config = GenerationConfig(
            max_new_tokens=max_new_tokens,
            do_sample=sample,
            temperature=temperature if sample else None,
            top_p=top_p if sample else None,
            eos_token_id=self.stop_ids,
            pad_token_id=self.pad_id,
            output_logits=True,
            return_dict_in_generate=True,
        )

    def generate(
        self,
        conversations: list[list[Message]],
        tools: list[dict[str, Any]] | None = None,
        prompt_ids: list[list[int]] | None = None,
    ) -> list[Generation]:
        prompt_ids = self._prompt_token_ids(conversations, tools, prompt_ids)
        if not prompt_ids:
            return []
        input_ids, attention_mask = self._left_pad(prompt_ids)
        was_training = self.model.training
        self.model.eval()
        try:
            with torch.no_grad():
                output = self.model.generate(
                    input_ids=input_ids,
                    attention_mask=attention_mask,
                    generation_config=self.config,
                )
        finally:
            self.model.train(was_training)
        new_ids = output.sequences[:, input_ids.shape[1] :]
        logprobs = self._chosen_logprobs(output.logits, new_ids)
        return [
            self._generation(p, new_ids[i].tolist(), logprobs[i].tolist()) for i, p in enumerate(prompt_ids)
        ]

    def _left_pad(self, prompts: list[list[int]]) -> tuple[torch.Tensor, torch.Tensor]:
        device = self.model.device
        width = max(len(p) for p in prompts)
        ids = torch.full((len(prompts), width), self.pad_id, dtype=torch.long, device=device)
        mask = torch.zeros((len(prompts), width), dtype=torch.long, device=device)
        for row, prompt in enumerate(prompts):
            ids[row, width - len(prompt) :] = torch.tensor(prompt, dtype=torch.long, device=device)
            mask[row, width - len(prompt) :] = 1
        return ids, mask

    def _chosen_logprobs(self, step_logits: tuple[torch.Tensor, ...], new_ids: torch.Tensor) -> torch.Tensor:
        scale = self.temperature if self.config.do_sample else 1.0
        columns = [
            torch.log_softmax(logits.float() / scale, dim=-1).gather(1, new_ids[:, t : t + 1])
            for t, logits in enumerate(step_logits)
        ]
        return torch.cat(columns, dim=1).cpu()

    def _generation(self, prompt: list[int], ids: list[int], logprobs: list[float]) -> Generation:
        """Cut one row at its first stop token (kept) and decode the text before it."""
        stop = next((i for i, token in enumerate(ids) if token in self.stop_ids), None)
        end = len(ids) if stop is None else stop + 1
        text_end = end if stop is None else stop
        return Generation.from_text(
            self.tokenizer.decode(ids[:text_end], skip_special_tokens=False),
            prompt_ids=list(prompt),
            completion_ids=ids[:end],
            logprobs=logprobs[:end],
            finish_reason="length" if stop is None else "stop",
        )
