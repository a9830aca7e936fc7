"""The worked recipes of docs/extend/ run: a reward weight mix, a strategy and a retrieval backend from
examples/ (the benchmark recipe, examples/arithmetic.py, runs in tests/pipelines/test_custom_benchmark.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hydra.utils import get_class, instantiate

from agenttune.agents.episode import run_episodes
from agenttune.agents.toy import CalculatorHarness, calculator_policy, tasks
from agenttune.benchmarks.search import SEARCH_REWARDS
from agenttune.config import repo_root
from agenttune.engines.scripted import ScriptedEngine
from agenttune.events.schema import EventKind
from agenttune.pipelines.fit import MisfitError, check_fit
from agenttune.rag.chunking import Chunk
from agenttune.rewards.mix import RewardMix
from tests.conftest import compose_config

EXAMPLES = f"hydra.searchpath=[file://{Path(repo_root()) / 'examples' / 'conf'}]"


def constant(value: float):
    """A reward function that gives every completion ``value``."""
    return lambda completions, **kwargs: [value] * len(completions)


def test_a_reward_weight_mix_from_a_yaml_file_weighs_the_components():
    cfg = compose_config(["+experiment=cuad_grpo", "reward=evidence_first", EXAMPLES])
    assert dict(cfg.reward.weights) == {
        "exact_match": 0.2, "token_f1": 0.3, "evidence": 1.0, "frugality": 0.2, "format": 0.2,
    }  # fmt: skip
    values = {"exact_match": 0.0, "token_f1": 0.5, "evidence": 1.0, "frugality": 1.0, "format": 1.0}
    functions = {name: constant(value) for name, value in values.items()}
    mix = RewardMix.from_config(cfg.reward, functions)  # as benchmarks.search.search_reward builds it
    assert mix.score(["reply"]).totals == [pytest.approx(0.3 * 0.5 + 1.0 + 0.2 + 0.2)]
    assert set(cfg.reward.weights) <= set(SEARCH_REWARDS)  # every component names a search reward


def test_a_new_strategy_shapes_what_the_policy_sees(tokenizer):
    cfg = compose_config(["+experiment=cuad_grpo", "strategy=budget_react", EXAMPLES])
    strategy = instantiate(cfg.strategy)
    seen = []

    def policy(conversation, tools):
        seen.append([m["content"] for m in conversation])
        return calculator_policy(conversation, tools)

    (log,) = run_episodes(ScriptedEngine(policy, tokenizer), [CalculatorHarness()], strategy, tasks(1))
    prompts = [e.payload.text for e in log.events if e.kind == EventKind.USER and e.actor == "strategy"]
    assert prompts[0] == "2 of 3 turns left: answer as soon as the results allow."
    assert prompts[0] in seen[1]  # the policy's second turn saw it


def test_a_new_retrieval_backend_builds_once_and_searches(tmp_path):
    cfg = compose_config(["+experiment=cuad_grpo", "retrieval=tfidf", EXAMPLES])
    check_fit(cfg, ["retrieval=tfidf"])
    chunks = [
        Chunk(
            id="a#0", doc_id="a", start=0, end=40, text="This Agreement is governed by the laws of Nevada."
        ),
        Chunk(id="b#0", doc_id="b", start=0, end=40, text="The term of this lease is five years."),
        Chunk(id="b#1", doc_id="b", start=40, end=80, text="Disputes are governed by the courts of Ohio."),
    ]
    backend = get_class(cfg.retrieval._target_)
    retriever = backend(cache_dir=tmp_path, k=cfg.retrieval.k).build(chunks)
    assert [hit.chunk_id for hit in retriever.search("which laws govern the agreement", k=2)][0] == "a#0"
    assert [hit.chunk_id for hit in retriever.search("governed", doc_id="b")] == ["b#1"]
    again = backend(cache_dir=tmp_path).build(chunks)
    assert again.last_build_reused and again.search("lease term")[0].doc_id == "b"


def test_the_example_backend_is_refused_where_nothing_is_searched():
    overrides = ["+experiment=tau2_oracle", "retrieval=tfidf", EXAMPLES]
    with pytest.raises(MisfitError, match="retrieval=tfidf is ignored"):
        check_fit(compose_config(overrides), overrides)
