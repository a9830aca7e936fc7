"""The examples in the reward modules' docstrings run and hold."""

import doctest
import importlib

import pytest

MODULES = [
    "agenttune.rewards.format",
    "agenttune.rewards.mix",
    "agenttune.rewards.judge",
    "agenttune.rewards.grounding",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0 and result.failed == 0
