"""The sandbox runs code in a child process, kills it at the time limit, caps its memory, and refuses to run
without isolation when isolation is required."""

import time

import pytest

from agenttune.config import HarnessConfig
from agenttune.events.schema import Event, ToolCallPayload
from agenttune.harness.sandbox import IsolationUnavailable, Sandbox, SandboxError, SandboxTimeout
from agenttune.harness.tools import ToolRegistry

pytestmark = pytest.mark.skipif(not Sandbox()._can_isolate(), reason="needs POSIX setrlimit")


def test_runs_code_in_a_child_and_returns_its_output():
    assert Sandbox().python_exec("print(6 * 7)") == "42\n"
    assert Sandbox().python_exec("x = 1") == "(the program printed nothing)"


def test_the_child_does_not_share_the_callers_state():
    Sandbox().python_exec("import builtins\nbuiltins.marker = 1")
    assert not hasattr(__import__("builtins"), "marker")


def test_infinite_loop_is_killed_at_the_time_limit():
    sandbox = Sandbox(time_limit_s=1.0)
    started = time.perf_counter()
    result = sandbox.run("while True:\n    pass")
    assert result.timed_out and result.returncode is None
    assert time.perf_counter() - started < 5
    with pytest.raises(SandboxTimeout, match="timed out after 1 s"):
        sandbox.python_exec("while True:\n    pass")


def test_huge_allocation_hits_the_memory_limit():
    sandbox = Sandbox(memory_limit_mb=256)
    assert sandbox.python_exec("x = bytearray(16 * 1024 * 1024)\nprint(len(x))") == "16777216\n"
    result = sandbox.run("x = bytearray(4 * 1024 ** 3)")
    assert result.returncode != 0 and "MemoryError" in result.stderr
    with pytest.raises(SandboxError, match="MemoryError"):
        sandbox.python_exec("x = bytearray(4 * 1024 ** 3)")


def test_isolation_unavailable_fails_when_required_and_never_runs_in_process():
    with pytest.raises(IsolationUnavailable, match="require_isolation"):
        Sandbox(isolation_available=False).run("print('ran')")
    relaxed = Sandbox(isolation_available=False, require_isolation=False)
    assert relaxed.python_exec("import os\nprint(os.getpid())").strip() != str(__import__("os").getpid())


def test_python_exec_as_a_tool_turns_failures_into_error_results():
    def run(sandbox: Sandbox, code: str):
        registry = ToolRegistry([sandbox.python_exec], timeout_s=10)
        result = registry.execute(
            Event(payload=ToolCallPayload(call_id="c", name="python_exec", arguments={"code": code}))
        )
        return result.payload, registry.metrics()

    ok, _ = run(Sandbox(), "print('hi')")
    assert (ok.content, ok.is_error) == ("hi\n", False)
    crashed, _ = run(Sandbox(), "raise ValueError('bad input')")
    assert crashed.is_error and "ValueError: bad input" in crashed.content
    looped, metrics = run(Sandbox(time_limit_s=0.5), "while True: pass")
    assert looped.is_error and metrics["tools/errors/timeout"] == 1
    refused, _ = run(Sandbox(isolation_available=False), "print('hi')")
    assert refused.is_error and "isolation is required" in refused.content


def test_from_config_takes_the_harness_limits():
    sandbox = Sandbox.from_config(HarnessConfig(name="tools", tool_timeout_s=3.0, require_isolation=False))
    assert (sandbox.time_limit_s, sandbox.require_isolation) == (3.0, False)
