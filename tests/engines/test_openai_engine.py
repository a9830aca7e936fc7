"""The OpenAI-compatible engine against a fake chat-completions server on 127.0.0.1."""

from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from agenttune.engines.openai_engine import OpenAIEngine


@pytest.fixture
def server():
    """Answers each request with the next canned reply; records requests and their headers."""
    state = {"requests": [], "headers": [], "replies": []}

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            state["requests"].append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
            state["headers"].append((self.path, self.headers["Authorization"]))
            body = json.dumps(state["replies"].pop(0)).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    httpd = HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    state["url"] = f"http://127.0.0.1:{httpd.server_port}/v1"
    yield state
    httpd.shutdown()


def reply(message, finish="stop", logprobs=(-0.5, -0.25)):
    return {
        "id": "cmpl-1",
        "choices": [
            {
                "message": {"role": "assistant", **message},
                "finish_reason": finish,
                "logprobs": {"content": [{"token": "x", "logprob": lp} for lp in logprobs]},
            }
        ],
    }


def test_native_tool_calls_logprobs_and_request_shape(server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    native = {"id": "c9", "type": "function", "function": {"name": "add", "arguments": '{"a": 1, "b": 2}'}}
    server["replies"] = [reply({"content": "Adding.", "tool_calls": [native]})]
    engine = OpenAIEngine(
        "served", base_url=server["url"], max_new_tokens=7, temperature=0.0, use_openai_package=False
    )
    history = {"role": "assistant", "content": "", "tool_calls": [{"id": "a", "type": "function", "function": {"name": "add", "arguments": {"a": 0}}}]}  # fmt: skip
    conversation = [
        {"role": "user", "content": "1 + 2?"},
        history,
        {"role": "tool", "tool_call_id": "a", "content": "0"},
    ]
    [generation] = engine.generate([conversation], tools=[{"type": "function", "function": {"name": "add"}}])

    assert generation.message["content"] == "Adding."
    assert generation.message["tool_calls"][0]["function"] == {"name": "add", "arguments": {"a": 1, "b": 2}}
    assert generation.logprobs == [-0.5, -0.25] and generation.completion_ids is None
    [request] = server["requests"]
    assert server["headers"] == [("/v1/chat/completions", "Bearer sk-test")]
    assert (request["model"], request["max_tokens"], request["temperature"], request["logprobs"]) == (
        "served",
        7,
        0.0,
        True,
    )
    assert request["messages"][1]["tool_calls"][0]["function"]["arguments"] == '{"a": 0}'
    assert request["tools"][0]["function"]["name"] == "add"


def test_text_tool_calls_malformed_calls_and_batches(server):
    server["replies"] = [
        reply({"content": '<tool_call>\n{"name": "add", "arguments": {"a": 5}}\n</tool_call>'}),
        reply({"content": "<tool_call>{broken"}, finish="length", logprobs=()),
    ]
    engine = OpenAIEngine("m", base_url=server["url"], concurrency=1, use_openai_package=False)
    first, second = engine.generate([[{"role": "user", "content": "a"}], [{"role": "user", "content": "b"}]])
    assert first.parsed.tool_calls[0].arguments == {"a": 5} and first.parse_errors == []
    assert second.parse_errors[0].message == "unclosed <tool_call> tag"
    assert second.finish_reason == "length" and second.logprobs is None


def test_needs_a_base_url(monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ValueError, match="OPENAI_BASE_URL"):
        OpenAIEngine("m")


def test_an_unreachable_endpoint_or_an_unreadable_answer_is_a_failed_generation(server):
    server["replies"] = [{"choices": []}]
    [unreadable] = OpenAIEngine("m", base_url=server["url"], use_openai_package=False).generate([[]])
    assert unreadable.error.startswith(f"{server['url']}: IndexError") and unreadable.text == ""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{probe.getsockname()[1]}/v1"  # bound, never listening
        engine = OpenAIEngine("m", base_url=url, use_openai_package=False)
        generations = engine.generate(
            [[{"role": "user", "content": "a"}], [{"role": "user", "content": "b"}]]
        )
    assert len(generations) == 2
    assert all(
        g.error.startswith(f"{url}: URLError") and "Connection refused" in g.error for g in generations
    )
    assert [(g.text, g.parsed.segments) for g in generations] == [("", []), ("", [])]
