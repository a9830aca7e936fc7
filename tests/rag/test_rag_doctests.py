"""The examples in the span, snippet and fusion modules' docstrings run and hold."""

import doctest
import importlib

import pytest

MODULES = ["agenttune.rag.spans", "agenttune.rag.snippets", "agenttune.rag.hybrid"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0 and result.failed == 0
