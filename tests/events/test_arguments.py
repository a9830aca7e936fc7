"""Tool-call arguments are checked against the tool's JSON schema (before the tool runs, and in trajectory
metrics)."""

import doctest

from agenttune.events import arguments
from agenttune.events.arguments import argument_problems

PARAMETERS = {
    "type": "object",
    "properties": {
        "query": {"type": "string"},
        "k": {"type": "integer"},
        "weight": {"type": "number"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "mode": {"type": "string", "enum": ["fast", "exact"]},
        "limit": {"type": ["integer", "string"]},
        "note": {"type": "string", "nullable": True},
    },
    "required": ["query"],
}


def test_valid_arguments_have_no_problems():
    arguments = {
        "query": "q",
        "k": 2,
        "weight": 1,
        "tags": ["a"],
        "mode": "fast",
        "limit": "all",
        "note": None,
    }
    assert argument_problems(arguments, PARAMETERS) == []


def test_missing_extra_and_mistyped_arguments_are_each_named():
    problems = argument_problems({"k": "2", "colour": "red"}, PARAMETERS)
    assert problems == [
        "missing required argument 'query'",
        "unexpected argument 'colour'",
        "'k' should be integer, got str '2'",
    ]


def test_bool_is_not_a_number_and_items_and_enums_are_checked():
    problems = argument_problems(
        {"query": "q", "weight": False, "tags": ["a", 3], "mode": "slow"}, PARAMETERS
    )
    assert len(problems) == 3
    assert "'weight' should be number" in problems[0]
    assert "'tags[1]' should be string" in problems[1]
    assert "'mode' should be one of ['fast', 'exact']" in problems[2]


def test_null_only_where_nullable():
    assert argument_problems({"query": "q", "note": None}, PARAMETERS) == []
    assert argument_problems({"query": None}, PARAMETERS) == ["'query' should be string, got NoneType None"]


def test_docstring_examples():
    result = doctest.testmod(arguments)
    assert result.attempted > 0 and result.failed == 0
