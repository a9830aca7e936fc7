"""The conformance checks every harness in the repo passes (``tests/harness/test_conformance.py``).

:func:`check_harness` drives fresh harnesses through one scripted episode and checks that

* the harness implements the protocol: ``capabilities()`` is a frozenset, ``tool_schemas()`` are
  OpenAI-style function schemas;
* every observation comes back as :class:`~agenttune.events.schema.Event` objects (opening events included);
* every TOOL_CALL is answered by a TOOL_RESULT carrying its ``call_id``, and no other TOOL_RESULT;
* a call to a tool that does not exist is answered by an error TOOL_RESULT, not an exception;
* the episode ends exactly at the last scripted action, and a step after that raises ``EpisodeDone``;
* with the ``"snapshot"`` capability, ``restore`` really reverts state: replaying the script from a snapshot
  taken halfway and from one taken before the last action reproduces the same observations, ``done`` flags
  and rewards (so a finished episode becomes unfinished again), and a snapshot still works after the episode
  it was taken from has moved on. (Two snapshots, not one per step: snapshots of real environments such as
  tau2's databases take seconds.)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from agenttune.events.schema import Event, EventKind, ToolCallPayload, to_builtins
from agenttune.harness.protocol import EpisodeDone, Harness, StepResult

UNKNOWN_TOOL = "conformance_no_such_tool"


class ConformanceError(AssertionError):
    """A harness broke a rule of the protocol; the message names the harness and the rule."""


def _require(condition: bool, harness: Any, message: str) -> None:
    if not condition:
        raise ConformanceError(f"{type(harness).__name__}: {message}")


def _check_step(harness: Harness, action: Event, result: Any, index: int) -> None:
    _require(
        isinstance(result, StepResult),
        harness,
        f"step {index} returned {type(result).__name__}, not StepResult",
    )
    for event in result.observations:
        _require(isinstance(event, Event), harness, f"step {index} observation {event!r:.80} is not an Event")
    results = [e.payload for e in result.observations if e.kind == EventKind.TOOL_RESULT]
    if action.kind == EventKind.TOOL_CALL:
        call_id = action.payload.call_id
        _require(bool(results), harness, f"step {index}: tool call {call_id!r} got no TOOL_RESULT")
    else:
        call_id = None
    for payload in results:
        _require(
            payload.call_id == call_id,
            harness,
            f"step {index}: TOOL_RESULT call_id {payload.call_id!r} does not answer this action ({call_id!r})",
        )


def _outcome(result: StepResult) -> tuple[list[dict[str, Any]], bool, float | None]:
    return [to_builtins(e) for e in result.observations], result.done, result.reward


def _step(harness: Harness, actions: Sequence[Event], index: int) -> StepResult:
    """Take scripted action ``index``, check the result, and check the episode ends exactly at the last one."""
    result = harness.step(actions[index])
    _check_step(harness, actions[index], result, index)
    _require(
        result.done == (index == len(actions) - 1),
        harness,
        f"step {index} of {len(actions)} returned done={result.done}; the script must end the episode "
        "exactly at its last action",
    )
    return result


def _check_description(harness: Harness) -> None:
    _require(isinstance(harness, Harness), harness, "does not implement every method of the Harness protocol")
    _require(isinstance(harness.capabilities(), frozenset), harness, "capabilities() must return a frozenset")
    for schema in harness.tool_schemas():
        _require(
            schema.get("type") == "function" and bool(schema.get("function", {}).get("name")),
            harness,
            f"tool schema {schema!r:.80} is not an OpenAI-style function schema",
        )


def _check_unknown_tool(harness: Harness, task: Any) -> None:
    harness.reset(task)
    call = Event(payload=ToolCallPayload(call_id="conformance-1", name=UNKNOWN_TOOL, arguments={}))
    try:
        result = harness.step(call)
    except Exception as exc:
        raise ConformanceError(
            f"{type(harness).__name__}: a call to unknown tool {UNKNOWN_TOOL!r} raised {type(exc).__name__}: {exc}; "
            "it must come back as an error TOOL_RESULT"
        ) from exc
    _check_step(harness, call, result, 0)
    errors = [e for e in result.observations if e.kind == EventKind.TOOL_RESULT and e.payload.is_error]
    _require(
        bool(errors), harness, f"a call to unknown tool {UNKNOWN_TOOL!r} must come back with is_error=True"
    )


def _check_restore(
    harness: Harness, actions: Sequence[Event], original: list[StepResult], snapshots: dict[int, Any]
) -> None:
    for index in sorted(snapshots, reverse=True):
        harness.restore(snapshots[index])
        for later in range(index, len(actions)):
            try:
                again = _step(harness, actions, later)
            except EpisodeDone as exc:
                raise ConformanceError(
                    f"{type(harness).__name__}: after restoring the snapshot taken before step {index}, step {later} "
                    "raised EpisodeDone: restore did not revert the state"
                ) from exc
            _require(
                _outcome(again) == _outcome(original[later]),
                harness,
                f"after restoring the snapshot taken before step {index}, step {later} differs from the first "
                "run: restore did not revert the state",
            )


def check_harness(make_harness: Callable[[], Harness], task: Any, actions: Sequence[Event]) -> list[str]:
    """Run the conformance checks on one fresh harness; raises :class:`ConformanceError` on the first broken rule.

    Args:
        make_harness: builds the harness under test (called once).
        task: a task the harness's ``reset`` accepts.
        actions: agent events (TOOL_CALL, TEXT, ...) forming one episode that ends at the last action.

    Returns:
        The names of the checks that ran (``"restore"`` only with the ``"snapshot"`` capability).
    """
    if not actions:
        raise ValueError("check_harness needs at least one action")
    harness = make_harness()
    _check_description(harness)
    opening = harness.reset(task)
    _require(
        bool(opening) and all(isinstance(e, Event) for e in opening), harness, "reset() must return Events"
    )
    can_snapshot = "snapshot" in harness.capabilities()
    checkpoints = {len(actions) // 2, len(actions) - 1} if can_snapshot else set()
    snapshots, original = {}, []
    for index in range(len(actions)):
        if index in checkpoints:
            snapshots[index] = harness.snapshot()
        original.append(_step(harness, actions, index))
    try:
        harness.step(actions[-1])
    except EpisodeDone:
        pass
    else:
        raise ConformanceError(
            f"{type(harness).__name__}: a step after the episode ended must raise EpisodeDone"
        )
    checks = ["protocol", "events", "call_ids", "episode_done"]
    if can_snapshot:
        _check_restore(harness, actions, original, snapshots)
        checks.append("restore")
    _check_unknown_tool(harness, task)
    checks.append("unknown_tool")
    return checks
