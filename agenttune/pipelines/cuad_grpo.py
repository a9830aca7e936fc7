"""CUAD contract search with GRPO: evaluate, train with real search calls, evaluate again.

1. Questions from CUAD's clause annotations (train and held-out splits) and a retrieval index over the contracts
   they need plus distractors (``benchmark.max_docs``), built once in the cache.
2. ``eval_before/*``: one episode per held-out question with the starting policy.
3. GRPO (``algorithm=grpo``; any on-policy algorithm of the ``algorithm`` group works) on the train questions,
   each rollout calling ``search`` through :class:`SearchEnvironment`, rewarded by ``reward=cuad_search``.
4. ``eval_after/*`` with the trained policy. Every episode is in ``eventlogs/``.
"""

from __future__ import annotations

from datasets import Dataset
from omegaconf import DictConfig

from agenttune.harness.search_environment import SearchEnvironment
from agenttune.pipelines.common import load_policy, train_policy
from agenttune.pipelines.search_agent import cuad_setup, evaluate, harness_factory, prompt_rows, search_reward
from agenttune.tracking.run import RunContext
from agenttune.training import TrainingData


def run(cfg: DictConfig, run: RunContext) -> None:
    train_questions, held_out, retriever = cuad_setup(cfg)
    model, tokenizer = load_policy(cfg)
    evaluate(cfg, run, model, tokenizer, held_out, retriever, "eval_before")
    make_harness = harness_factory(cfg, retriever)
    train_policy(
        cfg,
        run,
        model,
        tokenizer,
        TrainingData(prompts=Dataset.from_list(prompt_rows(train_questions))),
        reward_funcs=[search_reward(cfg)],
        environment_factory=lambda: SearchEnvironment(make_harness),
    )
    evaluate(cfg, run, model, tokenizer, held_out, retriever, "eval_after")
