"""Evaluation samples at ``model.eval_temperature`` when it is set; rollouts keep ``model.temperature``."""

import pytest

from agenttune.stages.phases import policy_engine
from tests.conftest import compose_config


@pytest.mark.parametrize(("override", "expected"), [([], 0.7), (["model.eval_temperature=0"], 0.0)])
def test_evaluation_engine_temperature(tiny_model, tokenizer, tmp_path, override, expected):
    cfg = compose_config(["model=tiny_random", "model.temperature=0.7", *override], tmp_path)
    engine = policy_engine(cfg, tiny_model, tokenizer)
    assert engine.temperature == expected
