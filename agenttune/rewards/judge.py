"""An LLM judge as a TRL reward function, over any engine.

:class:`LLMJudge` asks an engine (anything with ``generate(conversations, tools=None)`` returning objects whose
``.message["content"]`` is the reply, such as :class:`agenttune.engines.base.Engine`) to grade each answer and
reads ``SCORE: <number>`` from the reply. Guards against the usual ways a judge goes wrong:

* **Clamping**: scores outside [0, 1] are clamped into it.
* **Rubric rotation**: several rubric prompts take turns, one per group of completions (every completion of a
  group is judged by the same rubric, so they stay comparable), so the policy cannot overfit one wording.
* **Unparsable replies**: a reply without a score is logged (warning with an excerpt) and counted in
  :attr:`LLMJudge.unparsable`; the sample gets ``None``, which TRL and :class:`~agenttune.rewards.mix.RewardMix`
  leave out of the judge's mean rather than scoring it as any constant.
* **Empty answers** score 0.0 without asking the engine: an empty answer is never correct.
* **Grounding**: when an ``evidence`` column is given, an answer sharing no content word with it is capped at
  ``grounding_cap`` (counted in :attr:`LLMJudge.capped`).
* **Group-relative scores** (``group_size=G``): each run of ``G`` consecutive completions (TRL's
  ``num_generations`` for one prompt) is centred on its mean and divided by its standard deviation (when
  non-zero), so the judge ranks siblings instead of grading on an absolute scale it may not hold steady.

The answer judged is the last ``<answer>...</answer>`` block of the completion (so ``<answer></answer>`` is
empty), or its whole text when it has no such block. Columns: ``question`` (else the last user message of ``prompts``), optional ``answer`` (the reference)
and optional ``evidence`` (a string or a list of passages per sample).
"""

from __future__ import annotations

import logging
import re
import statistics
from collections.abc import Sequence
from typing import Any, Protocol

from agenttune.rewards.answer import ANSWER_PATTERN, extract_answer
from agenttune.rewards.cuad_search import Completion, completion_text
from agenttune.rewards.grounding import is_grounded

logger = logging.getLogger(__name__)

SYSTEM_PROMPT = (
    "You grade answers strictly and briefly. Give one or two sentences of reasons, then end with a line "
    "'SCORE: x' where x is a number from 0 (wrong) to 1 (fully correct)."
)
DEFAULT_RUBRICS = (
    "Question: {question}\nReference answer: {reference}\nEvidence:\n{evidence}\n\nCandidate answer: {answer}\n\n"
    "Does the candidate answer say the same thing as the reference answer? Wording may differ; facts may not.",
    "Evidence:\n{evidence}\n\nQuestion: {question}\nCandidate answer: {answer}\nReference answer: {reference}\n\n"
    "Is every claim in the candidate answer supported by the evidence, and does it answer the question?",
    "Question: {question}\nCandidate answer: {answer}\n\nReference answer: {reference}\nEvidence:\n{evidence}\n\n"
    "Grade completeness: does the candidate answer give everything the question asks for, and nothing false?",
)
_SCORE = re.compile(r"score\s*[:=]\s*\**\s*(-?\d+(?:\.\d+)?)", re.IGNORECASE)
NOT_GIVEN = "(not given)"


class JudgeEngine(Protocol):
    def generate(self, conversations: list[list[dict[str, Any]]], tools: Any = None) -> list[Any]: ...


def parse_score(reply: str) -> float | None:
    """The last ``SCORE: x`` in ``reply``, clamped to [0, 1]; ``None`` when there is none.

    >>> parse_score("Matches the reference. SCORE: 0.8"), parse_score("score = 7"), parse_score("**Score:** -2")
    (0.8, 1.0, 0.0)
    >>> parse_score("I think it is good.") is None
    True
    """
    found = _SCORE.findall(reply or "")
    return min(1.0, max(0.0, float(found[-1]))) if found else None


def group_relative(scores: Sequence[float | None], group_size: int) -> list[float | None]:
    """Centre each run of ``group_size`` scores on its mean and scale by its standard deviation when non-zero;
    ``None`` stays ``None`` and is left out of its group's statistics.

    >>> group_relative([1.0, 0.0, None, 0.5, 0.5, 0.5], 3)
    [1.0, -1.0, None, 0.0, 0.0, 0.0]
    """
    if len(scores) % group_size:
        raise ValueError(f"{len(scores)} scores do not split into groups of {group_size}")
    out: list[float | None] = []
    for start in range(0, len(scores), group_size):
        group = scores[start : start + group_size]
        present = [s for s in group if s is not None]
        mean = statistics.fmean(present) if present else 0.0
        spread = statistics.pstdev(present) if len(present) > 1 else 0.0
        out += [None if s is None else (s - mean) / (spread or 1.0) for s in group]
    return out


def _question(prompt: Completion) -> str:
    if isinstance(prompt, str):
        return prompt
    return next((str(m.get("content") or "") for m in reversed(prompt) if m.get("role") == "user"), "")


def _evidence_text(evidence: str | Sequence[str] | None) -> str:
    if evidence is None:
        return ""
    return evidence if isinstance(evidence, str) else "\n\n".join(evidence)


class LLMJudge:
    """Grade answers with an LLM (see the module docstring for the guards).

    Args:
        engine: generates the judge's replies.
        rubrics: prompt templates with ``{question}``, ``{reference}``, ``{evidence}`` and ``{answer}`` fields,
            used in turn.
        group_size: return group-relative scores over runs of this many completions (``None``: absolute).
        grounding_cap: the highest score of an answer sharing no content word with its evidence.
        max_evidence_chars: evidence shown to the judge is cut to this length.
        name: the ``__name__`` TRL shows for this reward.
    """

    def __init__(
        self,
        engine: JudgeEngine,
        rubrics: Sequence[str] = DEFAULT_RUBRICS,
        group_size: int | None = None,
        grounding_cap: float = 0.2,
        max_evidence_chars: int = 4000,
        name: str = "llm_judge",
    ) -> None:
        if not rubrics:
            raise ValueError("LLMJudge needs at least one rubric")
        self.engine = engine
        self.rubrics = list(rubrics)
        self.group_size = group_size
        self.grounding_cap = grounding_cap
        self.max_evidence_chars = max_evidence_chars
        self.__name__ = name
        self.judged = 0  # replies asked of the engine
        self.unparsable = 0  # replies without a score
        self.capped = 0  # scores capped by the grounding guard
        self.last_rubrics: list[int] = []  # rubric index used for each sample of the last batch
        self._turn = 0

    def _rubric_indices(self, n: int) -> list[int]:
        """One rubric per group (per sample without groups), taking turns across calls."""
        size = self.group_size or 1
        groups = -(-n // size)
        indices = [(self._turn + g) % len(self.rubrics) for g in range(groups) for _ in range(size)][:n]
        self._turn += groups
        return indices

    def _ask(self, prompts: list[str]) -> list[float | None]:
        """One judge reply per prompt, parsed; unparsable replies are logged and counted."""
        if not prompts:
            return []
        conversations = [
            [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": p}] for p in prompts
        ]
        generations = self.engine.generate(conversations)
        failed = [g.error for g in generations if getattr(g, "error", "")]
        if failed:  # an engine failure is not an unparsable reply: the caller's score fails, visibly
            raise RuntimeError(
                f"the judge's engine failed on {len(failed)} of {len(generations)} prompts: {failed[0]}"
            )
        replies = [g.message["content"] or "" for g in generations]
        self.judged += len(replies)
        scores = [parse_score(reply) for reply in replies]
        for reply, score in zip(replies, scores, strict=True):
            if score is None:
                self.unparsable += 1
                logger.warning("judge reply has no score (sample left unscored): %r", reply[:200])
        return scores

    def score(
        self,
        answers: Sequence[str],
        questions: Sequence[str],
        references: Sequence[str] | None = None,
        evidence: Sequence[str | Sequence[str]] | None = None,
    ) -> list[float | None]:
        """Scores in [0, 1] (or group-relative) for extracted answers; see the module docstring."""
        n = len(answers)
        rubric_of = self._rubric_indices(n)
        evidence_texts = (
            [_evidence_text(e)[: self.max_evidence_chars] for e in evidence] if evidence else None
        )
        asked = [i for i in range(n) if answers[i].strip()]
        prompts = [
            self.rubrics[rubric_of[i]].format(
                question=questions[i],
                reference=references[i] if references else NOT_GIVEN,
                evidence=evidence_texts[i] if evidence_texts else NOT_GIVEN,
                answer=answers[i],
            )
            for i in asked
        ]
        scores: list[float | None] = [0.0] * n
        for i, score in zip(asked, self._ask(prompts), strict=True):
            if (
                score is not None
                and evidence_texts
                and score > self.grounding_cap
                and not is_grounded(answers[i], evidence_texts[i])
            ):
                score = self.grounding_cap
                self.capped += 1
            scores[i] = score
        self.last_rubrics = rubric_of
        return group_relative(scores, self.group_size) if self.group_size else scores

    def __call__(self, completions: list[Completion], **kwargs: Any) -> list[float | None]:
        """TRL reward-function entry point; logs ``judge/unparsable`` and ``judge/capped`` through ``log_metric``."""
        texts = [completion_text(c) for c in completions]
        answers = [extract_answer(t) if ANSWER_PATTERN.search(t) else t.strip() for t in texts]
        questions = kwargs.get("question") or [
            _question(p) for p in kwargs.get("prompts") or [""] * len(texts)
        ]
        unparsable, capped = self.unparsable, self.capped
        scores = self.score(answers, questions, kwargs.get("answer"), kwargs.get("evidence"))
        log_metric = kwargs.get("log_metric")
        if log_metric is not None:
            log_metric("judge/unparsable", float(self.unparsable - unparsable))
            log_metric("judge/capped", float(self.capped - capped))
        return scores
