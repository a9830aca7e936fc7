"""verl's reward module scores with the project's own answer metrics."""

from __future__ import annotations

import pytest

from agenttune.rewards.verl import compute_score


def test_compute_score_uses_the_training_metrics():
    assert compute_score("cuad_search", "so <answer>the Nevada</answer>", ["Nevada"]) == 1.0
    assert compute_score("cuad_search", "Nevada without tags", "Nevada") == 0.0
    f1 = compute_score("cuad_search", "<answer>laws of Nevada</answer>", ["Nevada"], {"metric": "token_f1"})
    assert f1 == pytest.approx(2 * (1 / 3) / (1 / 3 + 1))
    with pytest.raises(ValueError, match="unknown metric 'bleu'"):
        compute_score("x", "<answer>a</answer>", "a", {"metric": "bleu"})


def test_the_communicate_metric_is_tau2s_own_check():
    pytest.importorskip("tau2")
    required = ["1234.50", "Refund"]  # tau2 drops the message's commas and ignores case
    stated = "Your refund of 1,234.50 dollars is on its way."
    assert compute_score("tau2_retail", stated, required, {"metric": "communicate"}) == 1.0
    assert (
        compute_score("tau2_retail", "Your refund is on its way.", required, {"metric": "communicate"}) == 0.0
    )
