"""Any OpenAI-compatible chat endpoint (OpenAI, vLLM's server, llama.cpp's server, ...).

The base URL comes from ``model.engine_url`` or ``OPENAI_BASE_URL``, the key from ``OPENAI_API_KEY`` (optional
for local servers), the served model from ``model.engine_model`` (else ``model.name``). Requests go through the
``openai`` package when it is installed, else through plain ``urllib`` JSON; conversations of a batch are sent
concurrently. Logprobs are requested; the endpoint returns no token ids, so generations are not token-exact.
Native ``tool_calls`` in the answer and ``<tool_call>`` blocks in its text are both parsed.

A request that fails (endpoint unreachable, HTTP error, time-out) or an answer that cannot be read gives a failed
:class:`~agenttune.engines.base.Generation` (``error`` set, no text) for that conversation only: the episode loop
logs it as an ERROR event and the run counts it (``engine/failures``).
"""

from __future__ import annotations

import importlib.util
import json
import os
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from agenttune.engines.base import Engine, Generation, Message
from agenttune.engines.tool_calls import assistant_text


class OpenAIEngine(Engine):
    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        max_new_tokens: int = 128,
        temperature: float = 0.7,
        top_p: float = 1.0,
        concurrency: int = 8,
        timeout_s: float = 120.0,
        use_openai_package: bool | None = None,
    ) -> None:
        self.base_url = (base_url or os.environ.get("OPENAI_BASE_URL") or "").rstrip("/")
        if not self.base_url:
            raise ValueError(
                "engine=openai needs model.engine_url or the OPENAI_BASE_URL environment variable"
            )
        self.api_key = api_key or os.environ.get("OPENAI_API_KEY") or "EMPTY"
        self.model = model
        self.sampling = {"max_tokens": max_new_tokens, "temperature": temperature, "top_p": top_p}
        self.concurrency = concurrency
        self.timeout_s = timeout_s
        if use_openai_package is None:
            use_openai_package = importlib.util.find_spec("openai") is not None
        self._client = None
        if use_openai_package:
            import openai

            self._client = openai.OpenAI(base_url=self.base_url, api_key=self.api_key, timeout=timeout_s)

    def generate(
        self,
        conversations: list[list[Message]],
        tools: list[dict[str, Any]] | None = None,
        prompt_ids: list[list[int]] | None = None,
    ) -> list[Generation]:
        self._check_prompt_ids(conversations, prompt_ids)
        payloads = [self._payload(c, tools) for c in conversations]
        with ThreadPoolExecutor(max_workers=max(1, min(self.concurrency, len(payloads)))) as pool:
            return list(pool.map(self._answer, payloads))

    def _answer(self, payload: dict[str, Any]) -> Generation:
        """One conversation's generation, or a failed one saying why the endpoint gave none."""
        try:
            return _generation(self._post(payload))
        except Exception as error:  # any failure of the request or the answer fails this generation only
            return Generation.failed(f"{self.base_url}: {type(error).__name__}: {error}")

    def _payload(self, conversation: list[Message], tools: list[dict[str, Any]] | None) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "model": self.model,
            "messages": [_wire_message(m) for m in conversation],
            "logprobs": True,
            **self.sampling,
        }
        if tools:
            payload["tools"] = tools
        return payload

    def _post(self, payload: dict[str, Any]) -> dict[str, Any]:
        """One chat-completion request, answered as the JSON dict the API returns."""
        if self._client is not None:
            return self._client.chat.completions.create(**payload).model_dump()
        request = urllib.request.Request(
            f"{self.base_url}/chat/completions",
            data=json.dumps(payload).encode(),
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {self.api_key}"},
        )
        with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
            return json.loads(response.read())


def _wire_message(message: Message) -> Message:
    """The message as the API expects it: tool-call arguments as JSON strings."""
    wire = dict(message)
    if message.get("tool_calls"):
        wire["tool_calls"] = [
            {**call, "function": {**call["function"], "arguments": json.dumps(call["function"]["arguments"])}}
            for call in message["tool_calls"]
        ]
    return wire


def _generation(response: dict[str, Any]) -> Generation:
    """Parse one chat completion; native tool calls are written as ``<tool_call>`` blocks and parsed with the text."""
    choice = response["choices"][0]
    message = choice["message"]
    text = assistant_text(message)
    tokens = (choice.get("logprobs") or {}).get("content") or []
    return Generation.from_text(
        text,
        logprobs=[token["logprob"] for token in tokens] or None,
        finish_reason="length" if choice.get("finish_reason") == "length" else "stop",
        info={"response_id": response.get("id", "")},
    )
