"""The search harness as a TRL ``environment_factory`` environment, so GRPO rollouts make real search calls.

TRL's GRPOTrainer makes one environment per rollout, calls ``reset(**row)`` with the dataset row, offers the
environment's public methods as tools, and passes the environments to reward functions as ``environments``.
:class:`SearchEnvironment` runs each ``search`` call through a :class:`SearchCorpusHarness` (the same tool, result
format and bookkeeping as evaluation episodes) and exposes what rewards need: the chunk ids it showed and the
number of searches.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agenttune.events.schema import Event, ToolCallPayload
from agenttune.harness.search_corpus import SearchCorpusHarness
from agenttune.harness.tools_harness import Question

BUDGET_SPENT = "The search budget of this episode is used up; answer now."


class SearchEnvironment:
    def __init__(self, make_harness: Callable[[], SearchCorpusHarness]) -> None:
        self._make_harness = make_harness
        self._harness: SearchCorpusHarness | None = None
        self._calls = 0

    def reset(self, **row: Any) -> None:
        self._harness = self._make_harness()
        self._harness.reset(Question(id=str(row.get("id", "")), question=str(row.get("question", ""))))
        self._calls = 0

    def search(self, query: str) -> str:
        """Search the document collection for passages relevant to a query.

        Args:
            query: Keywords or a question describing the passages to find.
        """
        if self._harness is None:
            raise RuntimeError("SearchEnvironment.search called before reset()")
        if self._harness.info().get("termination"):
            return BUDGET_SPENT
        self._calls += 1
        call = Event(
            payload=ToolCallPayload(call_id=f"call_{self._calls}", name="search", arguments={"query": query})
        )
        result = self._harness.step(call)
        return "\n".join(getattr(o.payload, "content", "") for o in result.observations)

    @property
    def retrieved_chunk_ids(self) -> list[str]:
        return self._harness.info()["retrieved_chunk_ids"] if self._harness else []

    @property
    def num_searches(self) -> int:
        return self._harness.info()["searches"] if self._harness else 0
