"""Conditions and assignments of a workflow: arithmetic, comparisons and boolean logic, never ``eval``.

Expressions are evaluated by ``simpleeval`` (an AST interpreter with no access to builtins, attributes starting
with ``_``, imports or assignments) over the run's values; a node's outputs are read as ``node.field``
(``review.reward >= 0.5 and escalations + 1 < 3``). :func:`check_expression` rejects, before anything runs, a
syntax error, a construct outside :data:`ALLOWED_NODES`, a call to a function outside :data:`FUNCTIONS` and a
name the workflow does not define, so a bad condition fails when the config is composed.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from typing import Any

from simpleeval import SimpleEval

FUNCTIONS: dict[str, Callable[..., Any]] = {
    "min": min,
    "max": max,
    "abs": abs,
    "round": round,
    "len": len,
    "int": int,
    "float": float,
}
ALLOWED_NODES = (
    ast.Expression,
    ast.BoolOp,
    ast.BinOp,
    ast.UnaryOp,
    ast.Compare,
    ast.IfExp,
    ast.Call,
    ast.Name,
    ast.Attribute,
    ast.Constant,
    ast.Load,
    ast.boolop,
    ast.operator,
    ast.unaryop,
    ast.cmpop,
    ast.List,
    ast.Tuple,
)


class ExpressionError(ValueError):
    """An expression that cannot be checked or evaluated; the message says why."""


def check_expression(text: str, names: Mapping[str, frozenset[str] | None]) -> None:
    """Raise :class:`ExpressionError` unless ``text`` parses, uses only allowed constructs and functions, and
    reads only ``names``: a name mapped to a set of fields may be read as ``name.field`` for those fields only
    (None: any field, e.g. a benchmark's metrics)."""
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as error:
        raise ExpressionError(f"{text!r} is not an expression: {error.msg}") from None
    for node in ast.walk(tree):
        if not isinstance(node, ALLOWED_NODES):
            raise ExpressionError(f"{text!r} uses {type(node).__name__}, which conditions do not allow")
        if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id in FUNCTIONS):
            raise ExpressionError(f"{text!r} calls {ast.unparse(node.func)}; allowed: {sorted(FUNCTIONS)}")
        if isinstance(node, ast.Attribute) and node.attr.startswith("_"):
            raise ExpressionError(f"{text!r} reads {node.attr!r}; names starting with _ are not allowed")
        if isinstance(node, ast.Attribute) and isinstance(
            node.value, ast.Name
        ):  # node.field (deeper: not known)
            owner = node.value.id
            if owner not in names:
                raise ExpressionError(
                    f"{text!r} reads {owner!r}, which is not a node or value of the workflow"
                )
            fields = names[owner]
            if fields is not None and node.attr not in fields:
                raise ExpressionError(f"{text!r} reads {owner}.{node.attr}; {owner} gives {sorted(fields)}")
        if isinstance(node, ast.Name) and node.id not in names and node.id not in FUNCTIONS:
            raise ExpressionError(f"{text!r} reads {node.id!r}; known names: {sorted(names)}")


def evaluate(text: str, values: Mapping[str, Any]) -> Any:
    """The value of ``text`` over ``values`` (a node's outputs are a mapping read as ``node.field``)."""
    try:
        return SimpleEval(names=dict(values), functions=FUNCTIONS).eval(text)
    except Exception as error:  # simpleeval's NameNotDefined, a missing field, a type error, ...
        raise ExpressionError(f"{text!r} failed: {type(error).__name__}: {error}") from None
