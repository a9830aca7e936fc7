"""The examples in the harness modules' docstrings run and hold."""

import doctest
import importlib

import pytest

MODULES = ["agenttune.harness.tools", "agenttune.harness.search_corpus"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0 and result.failed == 0
