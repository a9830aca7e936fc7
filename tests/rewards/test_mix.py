"""RewardMix: weighted totals, one logged value per component, and per-sample failures that spare the batch."""

import math

import pytest

from agenttune.config import RewardConfig
from agenttune.rewards.mix import RewardMix


def contains_gold(completions, answer, **kwargs):
    return [1.0 if a and a in c else 0.0 for c, a in zip(completions, answer, strict=True)]


def short(completions, **kwargs):
    return [1.0 if len(c) < 20 else 0.0 for c in completions]


def fragile(completions, **kwargs):
    """Raises on any completion containing 'boom'."""
    if any("boom" in c for c in completions):
        raise ValueError("cannot score boom")
    return [0.5] * len(completions)


def abstains(completions, **kwargs):
    return [None if "?" in c else 1.0 for c in completions]


def test_totals_are_weighted_sums_and_components_are_logged():
    mix = RewardMix({"answer": (contains_gold, 2.0), "short": (short, 0.5)})
    logged = {}
    totals = mix(
        ["Nevada", "It is governed by Nevada law."], answer=["Nevada", "Utah"], log_metric=logged.__setitem__
    )
    assert totals == [2.5, 0.0]
    assert mix.last.components == {"answer": [1.0, 0.0], "short": [1.0, 0.0]}
    assert logged == {"reward/total": 1.25, "reward/answer": 0.5, "reward/short": 0.5, "reward/errors": 0.0}
    assert mix.__name__ == "reward_mix"


def test_an_exception_on_one_sample_fails_that_sample_only():
    mix = RewardMix({"fragile": (fragile, 1.0), "short": (short, 1.0)}, failure_value=-1.0)
    scores = mix.score(["fine", "boom", "also fine"], answer=["a", "b", "c"])
    assert scores.totals == [1.5, -1.0, 1.5]
    assert scores.failed == [False, True, False]
    assert scores.components["fragile"] == [0.5, None, 0.5]
    assert scores.components["short"] == [1.0, 1.0, 1.0]
    assert scores.errors == ["fragile on sample 1: ValueError: cannot score boom"]
    assert scores.metrics()["reward/errors"] == 1.0


def test_per_sample_retry_slices_columns_and_passes_shared_values():
    seen = []

    def picky(completions, answer, trainer_state, **kwargs):
        seen.append((list(completions), list(answer), trainer_state))
        if len(completions) > 1:
            raise RuntimeError("batch")
        return [1.0]

    RewardMix({"picky": (picky, 1.0)})(["x", "y"], answer=["a", "b"], trainer_state="state")
    assert seen[1:] == [(["x"], ["a"], "state"), (["y"], ["b"], "state")]


def test_abstentions_are_left_out_not_replaced():
    mix = RewardMix({"judge": (abstains, 1.0), "short": (short, 1.0)})
    assert mix(["ok", "what?"]) == [2.0, 1.0]
    assert mix.last.metrics()["reward/judge"] == 1.0
    assert math.isnan(RewardMix({"judge": (abstains, 1.0)}).score(["?"]).metrics()["reward/judge"])


def test_a_batch_output_of_the_wrong_length_is_retried_per_sample():
    mix = RewardMix({"bad": (lambda completions, **kw: [1.0], 1.0)})
    assert mix(["a", "b"]) == [1.0, 1.0]
    assert mix.last.errors == []


def test_from_config_reads_weights_and_names_unknown_components():
    cfg = RewardConfig(name="demo", weights={"answer": 1.0, "short": 0.25})
    mix = RewardMix.from_config(cfg, {"answer": contains_gold, "short": short})
    assert mix.__name__ == "demo" and mix(["Nevada"], answer=["Nevada"]) == [1.25]
    with pytest.raises(KeyError, match="short"):
        RewardMix.from_config(cfg, {"answer": contains_gold})
