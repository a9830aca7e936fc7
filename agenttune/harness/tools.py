"""The tool registry: plain typed callables in, JSON schemas and TOOL_RESULT events out.

A tool is a function (or bound method) with type hints and a Google-style docstring, TRL's convention; its
schema comes from ``transformers.utils.get_json_schema``. It returns a string, a JSON-serialisable value, or a
:class:`ToolOutput` when the log should keep facts the model does not see. :meth:`ToolRegistry.execute` answers one TOOL_CALL
event with one TOOL_RESULT event carrying the same ``call_id`` and never raises for anything the model did:

=================  ==================================================================
error type         when
=================  ==================================================================
``unknown_tool``   the name is not registered
``bad_arguments``  a required argument is missing, an argument is unknown or mistyped
``exception``      the tool raised
``timeout``        the tool ran past ``timeout_s``, or raised a ``TimeoutError``
=================  ==================================================================

Each error becomes a TOOL_RESULT with ``is_error=True`` and a message saying what went wrong, and is counted
in :attr:`ToolRegistry.error_counts` (see :meth:`ToolRegistry.metrics`).

A tool receives a deep copy of its call's arguments: a tool that keeps an argument (a list, a dict) and changes it
later changes its own copy, never the logged TOOL_CALL, so the EventLog keeps saying what the model generated.

In-process tools run in a daemon worker thread that the caller waits on until the deadline. Python cannot
kill a thread, so a tool that times out keeps running in the background until it returns; its result is
dropped. Tools that execute untrusted code must therefore run it through :mod:`agenttune.harness.sandbox`,
whose subprocess is killed at its time limit.
"""

from __future__ import annotations

import copy
import json
import threading
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from transformers.utils import get_json_schema

from agenttune.events.arguments import argument_problems
from agenttune.events.schema import Event, ToolCallPayload, ToolResultPayload

ERROR_TYPES = ("unknown_tool", "bad_arguments", "exception", "timeout")


class ToolFailure(Exception):
    """A failed call: ``error_type`` is one of :data:`ERROR_TYPES`, the message is shown to the model."""

    def __init__(self, error_type: str, message: str) -> None:
        super().__init__(message)
        self.error_type = error_type


@dataclass(frozen=True)
class ToolOutput:
    """What a tool may return instead of a string: the text the model sees, plus facts for the log only
    (the TOOL_RESULT's ``metadata``, e.g. ``{"retrieved_ids": [...]}``). ``str()`` gives the text."""

    content: str
    metadata: dict[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        return self.content


def tool_result(call: Event, output: ToolOutput, is_error: bool = False) -> Event:
    """The TOOL_RESULT event answering ``call`` (same call_id, tool name, branch and step)."""
    payload = ToolResultPayload(
        call_id=call.payload.call_id,
        name=call.payload.name,
        content=output.content,
        is_error=is_error,
        metadata=output.metadata,
    )
    return Event(payload=payload, actor="tool", branch=call.branch, step=call.step)


def _as_output(value: Any) -> ToolOutput:
    """A tool's return value as a :class:`ToolOutput` (strings as they are, anything else as JSON)."""
    if isinstance(value, ToolOutput):
        return value
    return ToolOutput(value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False))


def run_with_deadline(fn: Callable[..., Any], arguments: dict[str, Any], timeout_s: float) -> Any:
    """``fn(**arguments)`` in a daemon thread; raises ``TimeoutError`` after ``timeout_s`` (the thread lives on)."""
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["value"] = fn(**arguments)
        except BaseException as exc:  # handed to the caller's thread below
            outcome["error"] = exc

    worker = threading.Thread(target=target, name=f"tool-{getattr(fn, '__name__', 'call')}", daemon=True)
    worker.start()
    worker.join(timeout_s)
    if worker.is_alive():
        raise TimeoutError(f"timed out after {timeout_s:g} s")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


class ToolRegistry:
    """Named tools with their schemas; executes TOOL_CALL events.

    Args:
        tools: callables to register (type hints and a Google-style docstring each).
        timeout_s: deadline of one call, in seconds.

    >>> def add(a: int, b: int) -> int:
    ...     '''Add two numbers.
    ...
    ...     Args:
    ...         a: The first number.
    ...         b: The second number.
    ...     '''
    ...     return a + b
    >>> registry = ToolRegistry([add])
    >>> call = Event(payload=ToolCallPayload(call_id="c1", name="add", arguments={"a": 2, "b": 3}))
    >>> registry.execute(call).payload.content
    '5'
    >>> bad = Event(payload=ToolCallPayload(call_id="c2", name="add", arguments={"a": "2"}))
    >>> result = registry.execute(bad).payload
    >>> result.call_id, result.is_error, registry.metrics()["tools/errors/bad_arguments"]
    ('c2', True, 1)
    """

    def __init__(self, tools: Iterable[Callable[..., Any]] = (), timeout_s: float = 30.0) -> None:
        self.timeout_s = timeout_s
        self._tools: dict[str, Callable[..., Any]] = {}
        self._schemas: dict[str, dict[str, Any]] = {}
        self.call_count = 0
        self.error_counts: Counter[str] = Counter()
        for fn in tools:
            self.register(fn)

    def register(self, fn: Callable[..., Any], schema: dict[str, Any] | None = None) -> dict[str, Any]:
        """Add ``fn``; returns its schema. Raises if the name is taken or the docstring does not describe every
        argument.

        Without ``schema`` the name and schema come from ``fn``'s signature and docstring; with one (an
        OpenAI-style function schema, e.g. from a JSON tool spec) ``fn`` is registered under the schema's name
        and its arguments are checked against the schema's ``parameters``.
        """
        schema = get_json_schema(fn) if schema is None else schema
        name = schema["function"]["name"]
        if name in self._tools:
            raise ValueError(f"a tool named {name!r} is already registered")
        self._tools[name] = fn
        self._schemas[name] = schema
        return schema

    @property
    def names(self) -> list[str]:
        return list(self._tools)

    def schemas(self) -> list[dict[str, Any]]:
        """OpenAI-style JSON schemas of every tool, in registration order."""
        return list(self._schemas.values())

    def call(self, name: str, arguments: dict[str, Any]) -> ToolOutput:
        """Validate and run one call; returns its output or raises :class:`ToolFailure`."""
        if name not in self._tools:
            raise ToolFailure(
                "unknown_tool", f"unknown tool {name!r}; available tools: {', '.join(self._tools)}"
            )
        problems = argument_problems(arguments, self._schemas[name]["function"]["parameters"])
        if problems:
            raise ToolFailure("bad_arguments", f"bad arguments for {name!r}: {'; '.join(problems)}")
        try:
            return _as_output(run_with_deadline(self._tools[name], arguments, self.timeout_s))
        except TimeoutError as exc:
            raise ToolFailure("timeout", f"tool {name!r} {exc}") from exc
        except (Exception, SystemExit) as exc:  # a tool calling sys.exit() fails its call, not the run
            raise ToolFailure("exception", f"tool {name!r} raised {type(exc).__name__}: {exc}") from exc

    def execute(self, call: Event) -> Event:
        """Answer a TOOL_CALL event with a TOOL_RESULT event (``is_error=True`` on any failure)."""
        if not isinstance(call.payload, ToolCallPayload):
            raise TypeError(f"execute() takes a tool_call event, got {call.kind}")
        self.call_count += 1
        try:
            arguments = copy.deepcopy(call.payload.arguments)  # the logged call stays as generated
            return tool_result(call, self.call(call.payload.name, arguments))
        except ToolFailure as failure:
            self.error_counts[failure.error_type] += 1
            return tool_result(call, ToolOutput(f"Error: {failure}"), is_error=True)

    def metrics(self) -> dict[str, int]:
        """``tools/calls`` and ``tools/errors/<type>`` for every error type (zeros included)."""
        return {
            "tools/calls": self.call_count,
            **{f"tools/errors/{t}": self.error_counts[t] for t in ERROR_TYPES},
        }
