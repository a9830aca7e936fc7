"""The base ``Engine.serve``: turn by turn, one ``generate`` call per tool set, until every follow-up is None."""

from __future__ import annotations

from agenttune.engines.base import Request
from agenttune.engines.scripted import ScriptedEngine

ADD = [{"type": "function", "function": {"name": "add"}}]
SUB = [{"type": "function", "function": {"name": "sub"}}]


def test_serve_rounds_group_requests_by_tools_and_wait_for_the_round():
    calls = []

    class Recording(ScriptedEngine):
        def generate(self, conversations, tools=None, prompt_ids=None):
            calls.append(([c[-1]["content"] for c in conversations], tools))
            return super().generate(conversations, tools, prompt_ids)

    engine = Recording(lambda conversation, tools: "ok")
    turns = {0: 2, 1: 1, 2: 2}  # how many turns each request runs
    served = []

    def follow_up(index, generation):
        served.append((index, generation.text))
        turns[index] -= 1
        if turns[index] == 0:
            return None
        return Request([{"role": "user", "content": f"again {index}"}], ADD)

    requests = [
        Request([{"role": "user", "content": "a"}], ADD),
        Request([{"role": "user", "content": "b"}], SUB),
        Request([{"role": "user", "content": "c"}], ADD),
    ]
    engine.serve(requests, follow_up)
    assert calls == [(["a", "c"], ADD), (["b"], SUB), (["again 0", "again 2"], ADD)]
    assert served == [(0, "ok"), (2, "ok"), (1, "ok"), (0, "ok"), (2, "ok")]
