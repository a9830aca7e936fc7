"""A weighted mix of reward functions that logs every component and isolates per-sample failures.

:class:`RewardMix` is itself a TRL reward function (``mix(completions, **kwargs) -> list[float]``) whose total
for a sample is ``sum(weight * value)`` over its components. What it guarantees:

* Every component is logged on its own as ``reward/<name>`` (the mean over the samples it scored), next to
  ``reward/total`` and ``reward/errors``; through TRL's ``log_metric`` callback when the trainer passes one, and
  always in :attr:`RewardMix.last` (a :class:`MixScores` with the per-sample lists) for anyone else.
* A component that raises fails only the samples it raises on: the batch call is retried one sample at a
  time, each failing sample gets the total ``failure_value`` (default ``0.0``, documented penalty) and is
  counted in ``reward/errors``; the other samples keep their real totals. Each failure is logged as a warning
  with its message.
* A component may abstain on a sample by returning ``None`` (the LLM judge does for an unparsable reply): the
  sample's total is then the weighted sum of the components that did score it, TRL's own treatment of
  ``None``, and ``reward/<name>`` averages only the values it gave.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agenttune.config import RewardConfig

logger = logging.getLogger(__name__)

RewardFn = Callable[..., Sequence[float | None]]
# Keyword arguments TRL passes to every reward function that are not per-sample columns.
_SHARED_KWARGS = frozenset({"trainer_state", "log_extra", "log_metric"})


@dataclass
class MixScores:
    """One batch, scored: totals and the value each component gave each sample (``None``: failed or abstained)."""

    totals: list[float]
    components: dict[str, list[float | None]]
    failed: list[bool]  # a component raised on this sample
    errors: list[str] = field(default_factory=list)  # "<component> on sample <i>: <exception>"

    def errors_on(self, index: int) -> list[str]:
        """The errors raised on sample ``index``."""
        return [error for error in self.errors if f" on sample {index}: " in error]

    def metrics(self) -> dict[str, float]:
        """``reward/total``, ``reward/<name>`` per component (NaN when it scored no sample) and ``reward/errors``."""
        out = {"reward/total": _mean(self.totals)}
        out.update(
            {
                f"reward/{name}": _mean(v for v in values if v is not None)
                for name, values in self.components.items()
            }
        )
        out["reward/errors"] = float(len(self.errors))
        return out


def _mean(values: Any) -> float:
    values = list(values)
    return sum(values) / len(values) if values else math.nan


def _sample_kwargs(kwargs: dict[str, Any], index: int, n: int) -> dict[str, Any]:
    """The columns of sample ``index`` (lists of length ``n`` are sliced; shared values pass through)."""
    return {
        key: [value[index]]
        if key not in _SHARED_KWARGS and isinstance(value, list | tuple) and len(value) == n
        else value
        for key, value in kwargs.items()
    }


class RewardMix:
    """``components``: name -> (reward function, weight).

    Args:
        components: the reward functions and their weights; names appear in the logs as ``reward/<name>``.
        failure_value: the total given to a sample on which a component raised.
        name: the ``__name__`` TRL shows for the mix.

    >>> def length(completions, **kwargs):
    ...     return [min(len(c) / 10, 1.0) for c in completions]
    >>> def polite(completions, **kwargs):
    ...     return [1.0 if "please" in c else 0.0 for c in completions]
    >>> mix = RewardMix({"length": (length, 0.5), "polite": (polite, 1.0)})
    >>> mix(["please", "no"])
    [1.3, 0.1]
    >>> mix.last.metrics()["reward/polite"]
    0.5
    """

    def __init__(
        self,
        components: Mapping[str, tuple[RewardFn, float]],
        failure_value: float = 0.0,
        name: str = "reward_mix",
    ) -> None:
        if not components:
            raise ValueError("RewardMix needs at least one component")
        self.components = dict(components)
        self.failure_value = failure_value
        self.__name__ = name
        self.last: MixScores | None = None

    @classmethod
    def from_config(
        cls, cfg: RewardConfig, functions: Mapping[str, RewardFn], failure_value: float = 0.0
    ) -> RewardMix:
        """The mix of ``cfg.weights`` (component name -> weight), each name looked up in ``functions``."""
        unknown = sorted(set(cfg.weights) - set(functions))
        if unknown:
            raise KeyError(
                f"reward {cfg.name!r}: no reward function named {unknown}; known: {sorted(functions)}"
            )
        return cls(
            {name: (functions[name], weight) for name, weight in cfg.weights.items()}, failure_value, cfg.name
        )

    def _component_values(
        self, name: str, fn: RewardFn, completions: Sequence[Any], kwargs: dict[str, Any], errors: list[str]
    ) -> list[float | None | Exception]:
        """The component's value for each sample, or the exception it raised on that sample."""
        n = len(completions)
        try:
            values = list(fn(completions=list(completions), **kwargs))
            if len(values) != n:
                raise ValueError(f"returned {len(values)} values for {n} completions")
            return values
        except Exception as batch_error:
            logger.warning(
                "reward %r failed on the batch (%s); scoring its %d samples one by one", name, batch_error, n
            )
        values: list[float | None | Exception] = []
        for i in range(n):
            try:
                (value,) = fn(completions=[completions[i]], **_sample_kwargs(kwargs, i, n))
                values.append(value)
            except Exception as error:
                errors.append(f"{name} on sample {i}: {type(error).__name__}: {error}")
                logger.warning("reward %s", errors[-1])
                values.append(error)
        return values

    def score(self, completions: Sequence[Any], **kwargs: Any) -> MixScores:
        """Score a batch; keeps the result in :attr:`last`."""
        n, errors = len(completions), []
        raw = {
            name: self._component_values(name, fn, completions, kwargs, errors)
            for name, (fn, _) in self.components.items()
        }
        failed = [any(isinstance(raw[name][i], Exception) for name in raw) for i in range(n)]
        components = {
            name: [None if isinstance(v, Exception) else v for v in values] for name, values in raw.items()
        }
        totals = [
            self.failure_value
            if failed[i]
            else sum(
                weight * components[name][i]
                for name, (_, weight) in self.components.items()
                if components[name][i] is not None
            )
            for i in range(n)
        ]
        self.last = MixScores(totals=totals, components=components, failed=failed, errors=errors)
        return self.last

    def __call__(self, completions: Sequence[Any], **kwargs: Any) -> list[float]:
        """TRL reward-function entry point: the totals; logs ``reward/*`` through ``log_metric`` when given."""
        scores = self.score(completions, **kwargs)
        log_metric = kwargs.get("log_metric")
        if log_metric is not None:
            for metric, value in scores.metrics().items():
                if not math.isnan(value):  # a component that scored no sample has nothing to average
                    log_metric(metric, value)
        return scores.totals
