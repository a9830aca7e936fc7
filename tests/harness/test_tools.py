"""The tool registry: schemas from typed callables, and every failure as an error TOOL_RESULT, never a raise."""

import time

import pytest

from agenttune.events.schema import Event, EventKind, TextPayload, ToolCallPayload
from agenttune.harness.tools import ToolOutput, ToolRegistry


def lookup(city: str, limit: int = 3) -> str:
    """Look up facts about a city.

    Args:
        city: The city's name.
        limit: How many facts to return.
    """
    return f"{limit} facts about {city}"


def divide(a: float, b: float) -> float:
    """Divide two numbers.

    Args:
        a: The dividend.
        b: The divisor.
    """
    return a / b


def nap(seconds: float) -> str:
    """Sleep, then say so.

    Args:
        seconds: How long to sleep.
    """
    time.sleep(seconds)
    return "awake"


def call(name: str, call_id: str = "call-7", **arguments) -> Event:
    return Event(payload=ToolCallPayload(call_id=call_id, name=name, arguments=arguments), step=4, branch="b")


@pytest.fixture
def registry() -> ToolRegistry:
    return ToolRegistry([lookup, divide, nap], timeout_s=0.5)


def test_schemas_come_from_signature_and_docstring(registry):
    schema = registry.schemas()[0]["function"]
    assert registry.names == ["lookup", "divide", "nap"]
    assert schema["name"] == "lookup"
    assert schema["description"] == "Look up facts about a city."
    assert schema["parameters"]["properties"]["limit"] == {
        "type": "integer",
        "description": "How many facts to return.",
    }
    assert schema["parameters"]["required"] == ["city"]


def test_registering_twice_or_without_docstring_fails(registry):
    with pytest.raises(ValueError, match="already registered"):
        registry.register(lookup)
    with pytest.raises(Exception, match="docstring"):
        registry.register(lambda x: x)


def test_success_answers_with_the_same_call_id_step_and_branch(registry):
    result = registry.execute(call("lookup", city="Oslo"))
    assert result.kind == EventKind.TOOL_RESULT
    assert (result.payload.call_id, result.payload.name, result.payload.is_error) == (
        "call-7",
        "lookup",
        False,
    )
    assert result.payload.content == "3 facts about Oslo"
    assert (result.step, result.branch, result.actor) == (4, "b", "tool")


def test_non_string_results_are_json(registry):
    assert registry.execute(call("divide", a=1, b=4)).payload.content == "0.25"


def test_tool_output_metadata_goes_to_the_log_not_the_content():
    def fetch(url: str) -> ToolOutput:
        """Fetch a page.

        Args:
            url: The address.
        """
        return ToolOutput("<html>", {"status": 200})

    result = ToolRegistry([fetch]).execute(call("fetch", url="a")).payload
    assert (result.content, result.metadata) == ("<html>", {"status": 200})
    assert str(ToolOutput("text")) == "text"


@pytest.mark.parametrize(
    ("event", "error_type", "message"),
    [
        (
            call("weather", city="Oslo"),
            "unknown_tool",
            "unknown tool 'weather'; available tools: lookup, divide, nap",
        ),
        (call("lookup"), "bad_arguments", "missing required argument 'city'"),
        (call("lookup", city=5), "bad_arguments", "'city' should be string, got int 5"),
        (call("lookup", city="Oslo", country="NO"), "bad_arguments", "unexpected argument 'country'"),
        (call("divide", a=1, b=0), "exception", "tool 'divide' raised ZeroDivisionError: division by zero"),
        (call("nap", seconds=5), "timeout", "tool 'nap' timed out after 0.5 s"),
    ],
)
def test_each_failure_is_an_error_result_and_counted(registry, event, error_type, message):
    result = registry.execute(event).payload
    assert result.is_error and result.call_id == "call-7"
    assert message in result.content
    metrics = registry.metrics()
    assert metrics["tools/calls"] == 1
    assert metrics[f"tools/errors/{error_type}"] == 1
    assert sum(v for k, v in metrics.items() if k.startswith("tools/errors/")) == 1


def test_timeout_returns_at_the_deadline(registry):
    started = time.perf_counter()
    registry.execute(call("nap", seconds=3))
    assert time.perf_counter() - started < 1.5


def test_a_tool_calling_sys_exit_fails_only_its_call():
    def quit_now() -> str:
        """Exit the interpreter."""
        raise SystemExit(3)

    result = ToolRegistry([quit_now]).execute(call("quit_now")).payload
    assert result.is_error and "SystemExit" in result.content


def test_only_tool_calls_are_executed(registry):
    with pytest.raises(TypeError, match="tool_call"):
        registry.execute(Event(payload=TextPayload(text="hi")))
