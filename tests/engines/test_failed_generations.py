"""A generation the engine failed to produce (``Generation.error``) is never read as an empty reply: the episode loop
logs it (tests/pipelines/test_engine_failures.py), the judge and the tau2 user simulator raise (the question
generator too: tests/rag/test_cuad_multihop.py), and ToolGraph candidate scoring keeps a candidate that did not fail."""

from __future__ import annotations

import pytest

from agenttune.benchmarks.tau2.users import LLMUser
from agenttune.engines.base import Engine, Generation
from agenttune.rewards.judge import LLMJudge
from agenttune.selfevolve.candidates import ToolGraphEngine
from agenttune.selfevolve.config import ToolGraphConfig
from agenttune.selfevolve.toolgraph import ToolGraph


class Unreachable(Engine):
    """Fails every other generation when ``every_other``, else all of them."""

    def __init__(self, every_other: bool = False) -> None:
        self.every_other = every_other

    def generate(self, conversations, tools=None, prompt_ids=None):
        return [
            Generation.from_text("Done.")
            if self.every_other and i % 2
            else Generation.failed("endpoint down")
            for i in range(len(conversations))
        ]


def test_the_judge_raises_instead_of_leaving_samples_unscored():
    judge = LLMJudge(Unreachable())
    with pytest.raises(RuntimeError, match="judge's engine failed on 1 of 1 prompts: endpoint down"):
        judge.score(["42"], ["What is 6 x 7?"])
    assert judge.unparsable == 0


def test_the_llm_user_raises_instead_of_saying_nothing():
    with pytest.raises(RuntimeError, match="user simulator's engine failed: endpoint down"):
        LLMUser(Unreachable()).respond("How can I help?")


def test_candidate_scoring_keeps_a_candidate_that_did_not_fail():
    graph = ToolGraph(kinds={}, consumes={}, produces={})
    engine = ToolGraphEngine(Unreachable(every_other=True), graph, ToolGraphConfig(num_candidates=2))
    [chosen] = engine.generate([[{"role": "user", "content": "hi"}]])
    assert not chosen.error and chosen.parsed.content == "Done."
    [only_failures] = ToolGraphEngine(Unreachable(), graph, ToolGraphConfig(num_candidates=2)).generate([[]])
    assert only_failures.error == "endpoint down"  # the episode loop logs it
