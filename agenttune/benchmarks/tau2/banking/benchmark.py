"""``benchmark=tau2_banking``: the tau2 benchmark on the banking_knowledge domain, whose knowledge-base search uses
the ``retrieval`` group's backend (the index is built once into ``paths.cache_dir`` and reused)."""

from __future__ import annotations

from agenttune.benchmarks.base import register
from agenttune.benchmarks.tau2.banking import knowledge
from agenttune.benchmarks.tau2.benchmark import Tau2


def use_configured_retrieval(cfg) -> None:
    """Point ``KB_search`` at the backend ``cfg.retrieval`` names."""
    options = (
        {"rrf_k": cfg.retrieval.rrf_k, "weights": dict(cfg.retrieval.weights)}
        if cfg.retrieval.name == "hybrid"
        else {}
    )
    knowledge.use_backend(cfg.retrieval.name, cfg.paths.cache_dir, **options)


@register("tau2_banking")
class Tau2Banking(Tau2):
    uses_retrieval = True  # its KB_search runs on the retrieval group's backend

    def __init__(self, cfg) -> None:
        super().__init__(cfg)
        use_configured_retrieval(cfg)
