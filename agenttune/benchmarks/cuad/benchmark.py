"""``benchmark=cuad_search``: clause questions over CUAD contracts, answered by searching them.

Train and eval questions come from CUAD's clause annotations (``benchmark.num_train``, ``benchmark.num_eval``; with
``benchmark.eval_offset`` the eval questions are later validation questions on contracts the first
``eval_offset`` do not touch: a validation slice apart from the held-out one),
naming their contract by title and parties or by title alone (``benchmark.question_style``); with
``benchmark.question_set=multi_hop`` the eval questions are the synthesised multi-hop ones (metrics per hop count).
The retriever indexes all 510 contracts (``benchmark.max_docs`` caps the corpus for small runs: the contracts the
questions need plus distractors), built once in the cache. Each episode searches through
:class:`~agenttune.harness.search_corpus.SearchCorpusHarness` (whole corpus, the contracts' catalogue, one
contract); the ``reward``
group mixes answer EM/F1, evidence coverage, frugality and format; metrics are
:func:`~agenttune.benchmarks.cuad.metrics.episode_scores` per episode (means with 95% intervals); the teacher is the scripted
:class:`~agenttune.benchmarks.cuad.teacher.RetrievalTeacher`, and its trajectories are kept when they pass
:func:`~agenttune.benchmarks.cuad.teacher.check_trajectory`.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from agenttune.benchmarks.base import Benchmark, register
from agenttune.benchmarks.cuad.dataset import corpus_for, cuad_questions
from agenttune.benchmarks.cuad.metrics import search_scores
from agenttune.benchmarks.cuad.teacher import RetrievalTeacher, check_trajectory
from agenttune.benchmarks.search import build_retriever, search_harness, search_reward
from agenttune.engines.scripted import ScriptedEngine
from agenttune.events.schema import EventLog
from agenttune.rag.catalog import DocumentCatalog
from agenttune.rag.questions import QuestionRecord

CUAD_SPLITS = {"train": "train", "eval": "validation"}


@register("cuad_search")
class CuadSearch(Benchmark):
    uses_retrieval = True

    def tasks(self, split: str, limit: int | None = None) -> list[QuestionRecord]:
        limit = self.limit(split, limit)
        questions = self._questions[split]
        if limit > len(questions):
            raise ValueError(
                f"{limit} {split} questions asked; the index holds the contracts of {len(questions)}"
            )
        return questions[:limit] if limit else questions

    @functools.cached_property
    def _questions(self) -> dict[str, list[QuestionRecord]]:
        """Each split's questions; the train split as many as the run asks for (a warm start may distil more
        questions than RL trains on), so one index serves the whole run and a resumed run searches the same one."""
        bench, warm_start = self.cfg.benchmark, self.cfg.warm_start
        kinds = {"train": "single_hop", "eval": bench.question_set}

        def load(split: str, limit: int | None) -> list[QuestionRecord]:
            return cuad_questions(
                kinds[split],
                CUAD_SPLITS[split],
                limit=limit,
                seed=bench.seed,
                chunk_size=bench.chunk_size,
                chunk_overlap=bench.chunk_overlap,
                style=bench.question_style,
            )

        train = load("train", max(bench.num_train, warm_start.num_questions if warm_start.enabled else 0))
        if bench.eval_offset < 0:
            raise ValueError(f"benchmark.eval_offset must be >= 0, got {bench.eval_offset}")
        if not bench.eval_offset:
            return {"train": train, "eval": load("eval", bench.num_eval)}
        # a slice apart from the first eval_offset questions: later ones whose contracts none of those hold
        every = load("eval", None)
        held_out = {doc for question in every[: bench.eval_offset] for doc in question.doc_ids}
        rest = [q for q in every[bench.eval_offset :] if held_out.isdisjoint(q.doc_ids)]
        if len(rest) < bench.num_eval:
            raise ValueError(
                f"benchmark.eval_offset={bench.eval_offset} leaves {len(rest)} eval questions on other contracts; "
                f"benchmark.num_eval={bench.num_eval} asks for more"
            )
        return {"train": train, "eval": rest[: bench.num_eval] if bench.num_eval else rest}

    @functools.cached_property
    def _chunks(self):
        """The corpus: all contracts, or the questions' contracts plus distractors up to ``benchmark.max_docs``."""
        bench = self.cfg.benchmark
        questions = [*self._questions["train"], *self._questions["eval"]]
        return corpus_for(
            questions,
            bench.max_docs,
            seed=bench.seed,
            chunk_size=bench.chunk_size,
            chunk_overlap=bench.chunk_overlap,
        )

    @functools.cached_property
    def retriever(self):
        """The index over the corpus (built on first use, then loaded from the cache)."""
        return build_retriever(self.cfg, self._chunks)

    @functools.cached_property
    def catalog(self) -> DocumentCatalog:
        """The corpus's contracts, searchable by title and parties."""
        return DocumentCatalog(self._chunks)

    def harness(self, task: QuestionRecord):
        return search_harness(self.cfg, self.retriever, self.catalog)

    def reward(self):
        return search_reward(self.cfg)

    def episode_scores(
        self, logs: Sequence[EventLog], tasks: Sequence[QuestionRecord]
    ) -> list[dict[str, float]]:
        """:func:`search_scores` and ``reward``: the ``total`` of the ``reward`` group (what GRPO maximises), read
        from the logs the group already scored (:func:`~agenttune.stages.phases.scored_episodes`), computed for the
        others."""
        scores = search_scores(logs, tasks)  # first: it names logs of unknown questions
        by_id = {task.id: task for task in tasks}
        scored = list(logs)
        unscored = [index for index, log in enumerate(logs) if "total" not in log.rewards("episode")]
        if unscored:
            rescored = self.reward()([logs[i] for i in unscored], [by_id[logs[i].task_id] for i in unscored])
            for index, log in zip(unscored, rescored, strict=True):
                scored[index] = log
        return [
            episode | {"reward": log.rewards("episode")["total"]}
            for episode, log in zip(scores, scored, strict=True)
        ]

    def teacher(self, task: QuestionRecord, tokenizer: Any, kind: str = "oracle") -> ScriptedEngine:
        if kind != "oracle":
            return super().teacher(task, tokenizer, kind)
        return ScriptedEngine(RetrievalTeacher([task], max_calls=self.cfg.harness.max_steps - 1), tokenizer)

    def check(self, log: EventLog, task: QuestionRecord) -> str:
        return check_trajectory(log, task, min_f1=self.cfg.benchmark.teacher_min_f1)
