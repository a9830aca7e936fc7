"""The sandbox confines code: each escape a hostile program tries (reading the caller's environment, the network, the
host's files, a fork bomb, a flood of output, a grandchild that outlives the time limit, regaining privileges)
fails; where confinement is impossible it refuses to run. Where a test's probe could succeed, it first succeeds
unconfined, so a pass means the confinement stopped it, not that the probe was broken."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from agenttune.config import HarnessConfig
from agenttune.events.schema import Event, ToolCallPayload
from agenttune.harness import sandbox as sandbox_module
from agenttune.harness.sandbox import (
    IsolationUnavailable,
    Sandbox,
    SandboxError,
    SandboxTimeout,
    confinement_problem,
)
from agenttune.harness.tools import ToolRegistry

confined_only = pytest.mark.skipif(confinement_problem() is not None, reason=f"{confinement_problem()}")
UNCONFINED = Sandbox(isolation_available=False, require_isolation=False)


def host_processes_running(marker: str) -> list[int]:
    """Host pids whose command line holds ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and marker in (entry / "cmdline").read_bytes().decode(errors="replace"):
                found.append(int(entry.name))
        except OSError:
            continue
    return found


@confined_only
def test_runs_code_and_returns_its_output():
    assert Sandbox().python_exec("print(6 * 7)") == "42\n"
    assert Sandbox().python_exec("x = 1") == "(the program printed nothing)"
    Sandbox().python_exec("import builtins\nbuiltins.marker = 1")
    assert not hasattr(__import__("builtins"), "marker")


def test_the_caller_environment_is_unreadable(tmp_path):
    """A caller holding a secret in its environment runs the sandbox; the program looks for it everywhere."""
    secret = f"sk-{uuid.uuid4().hex}"
    hunt = f"""
import os
found = [k for k, v in os.environ.items() if {secret!r} in v]
for pid in {{"ppid": os.getppid(), "caller": CALLER}}.values():
    try:
        found += [f"/proc/{{pid}}/environ"] if {secret!r} in open(f"/proc/{{pid}}/environ").read() else []
    except OSError:
        pass
for entry in os.listdir("/proc"):
    try:
        found += [entry] if entry.isdigit() and {secret!r} in open(f"/proc/{{entry}}/environ").read() else []
    except OSError:
        pass
print("found" if found else "clean", sorted(set(found)))
"""
    caller = (
        "import os, sys\nfrom agenttune.harness.sandbox import Sandbox\n"
        f"sandbox = Sandbox() if sys.argv[1] == 'confined' else Sandbox(isolation_available=False, "
        "require_isolation=False)\n"
        f"print(sandbox.python_exec({hunt!r}.replace('CALLER', str(os.getpid()))))"
    )

    def run(mode: str) -> str:
        env = {**os.environ, "AGENTTUNE_TEST_API_KEY": secret}
        done = subprocess.run([sys.executable, "-c", caller, mode], env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert run("unconfined").startswith("found")  # the hunt works: unconfined it reads the caller's environ
    if confinement_problem() is None:
        assert run("confined").startswith("clean []")


def test_no_network_reaches_the_host():
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        code = (
            f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=2)\nprint('connected')"
        )
        assert UNCONFINED.python_exec(code) == "connected\n"
        if confinement_problem() is None:
            with pytest.raises(SandboxError, match="Network is unreachable"):
                Sandbox().python_exec(code)
            with pytest.raises(SandboxError, match="Network is unreachable"):
                Sandbox().python_exec("import socket\nsocket.create_connection(('1.1.1.1', 53), timeout=2)")


@confined_only
def test_the_file_system_is_read_only_except_the_scratch_folder(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret")
    assert UNCONFINED.python_exec(f"print(open({str(secret)!r}).read())") == "top secret\n"
    sandbox = Sandbox(scratch_mb=4)
    with pytest.raises(SandboxError, match="FileNotFoundError"):
        sandbox.python_exec(f"print(open({str(secret)!r}).read())")
    repo_file = Path(sandbox_module.__file__)
    with pytest.raises(SandboxError, match="FileNotFoundError"):
        sandbox.python_exec(f"open({str(repo_file)!r})")
    for target in ("/usr/evil", "/evil", f"{sys.prefix}/evil", "/proc/sys/kernel/hostname"):
        with pytest.raises(SandboxError, match="Read-only file system|PermissionError"):
            sandbox.python_exec(f"open({target!r}, 'w').write('x')")
    assert (
        sandbox.python_exec(
            "import os\nopen('notes.txt', 'w').write('ok')\nprint(os.getcwd(), open('notes.txt').read())"
        )
        == "/scratch ok\n"
    )
    with pytest.raises(SandboxError, match="No space left on device"):
        sandbox.python_exec("open('/scratch/big', 'wb').write(b'x' * 8 * 1024 * 1024)")
    assert (
        sandbox.python_exec("import os\nprint(os.path.exists('/scratch/notes.txt'))") == "False\n"
    )  # fresh each run


@confined_only
def test_no_privileges_remain():
    code = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
print(os.getuid(), os.geteuid())
print(libc.mount(None, b"/", None, 32, None), ctypes.get_errno())  # remount the root writable
print(libc.mount(None, b"/usr", None, 32 | 4096, None), ctypes.get_errno())
try:
    os.setuid(0)
except OSError:
    print("no setuid")
"""
    assert Sandbox().python_exec(code) == "65534 65534\n-1 1\n-1 1\nno setuid\n"


@confined_only
def test_a_fork_bomb_hits_the_process_limit():
    code = """
import os, time
started = 0
try:
    for _ in range(200):
        if os.fork() == 0:
            time.sleep(30)
            os._exit(0)
        started += 1
except BlockingIOError:
    print("refused after", started)
"""
    started = time.perf_counter()
    output = Sandbox(max_processes=8).python_exec(code)
    assert output.startswith("refused after") and int(output.split()[-1]) < 8
    assert time.perf_counter() - started < 10  # the sleeping children died with the program


@confined_only
def test_a_flood_of_output_kills_the_child():
    sandbox = Sandbox(max_output_bytes=100_000, time_limit_s=20)
    started = time.perf_counter()
    result = sandbox.run("while True:\n    print('x' * 1000)")
    assert result.output_exceeded and result.returncode is None and not result.timed_out
    assert time.perf_counter() - started < 10
    with pytest.raises(SandboxError, match="more than 100000 bytes of output"):
        sandbox.python_exec("import sys\nsys.stderr.write('y' * 200_000)")


@confined_only
@pytest.mark.parametrize("ending", ["time_limit", "normal_exit"])
def test_the_whole_process_tree_dies_setsid_grandchild_included(ending):
    marker = f"{time.time_ns() % 10**9}.{os.getpid()}"  # a unique sleep duration to find it on the host
    code = f"""
import os, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv("/bin/sleep", ["sleep", "{marker}"])
    os._exit(0)
time.sleep(0.5)
print("spawned", flush=True)
{"time.sleep(60)" if ending == "time_limit" else ""}
"""
    sandbox = Sandbox(time_limit_s=3)
    result = sandbox.run(code)
    assert result.stdout == "spawned\n" and result.timed_out == (ending == "time_limit")
    time.sleep(0.3)
    assert host_processes_running(f"sleep\x00{marker}") == []


@confined_only
def test_time_and_memory_limits():
    sandbox = Sandbox(time_limit_s=1.0, memory_limit_mb=256)
    started = time.perf_counter()
    result = sandbox.run("while True:\n    pass")
    assert result.timed_out and result.returncode is None and time.perf_counter() - started < 5
    with pytest.raises(SandboxTimeout, match="timed out after 1 s"):
        sandbox.python_exec("while True:\n    pass")
    assert sandbox.python_exec("x = bytearray(16 * 1024 * 1024)\nprint(len(x))") == "16777216\n"
    with pytest.raises(SandboxError, match="MemoryError"):
        sandbox.python_exec("x = bytearray(4 * 1024 ** 3)")


def test_without_confinement_it_fails_closed_and_never_runs_in_process(monkeypatch):
    monkeypatch.setattr(sandbox_module, "confinement_problem", lambda: "util-linux 'unshare' is not on PATH")
    with pytest.raises(IsolationUnavailable, match="isolation is required .* 'unshare' is not on PATH"):
        Sandbox().run("print('ran')")
    with pytest.raises(IsolationUnavailable, match="isolation_available=False"):
        Sandbox(isolation_available=False).run("print('ran')")
    assert UNCONFINED.python_exec("import os\nprint(os.getpid())").strip() != str(os.getpid())


def test_the_probe_names_what_is_missing(monkeypatch):
    monkeypatch.setattr(sandbox_module.shutil, "which", lambda name: None)
    if sys.platform.startswith("linux"):
        assert (
            confinement_problem.__wrapped__()
            == "util-linux 'unshare' is not on PATH (apt-get install util-linux)"
        )


def test_python_exec_as_a_tool_turns_failures_into_error_results(monkeypatch):
    def run(sandbox: Sandbox, code: str):
        registry = ToolRegistry([sandbox.python_exec], timeout_s=10)
        result = registry.execute(
            Event(payload=ToolCallPayload(call_id="c", name="python_exec", arguments={"code": code}))
        )
        return result.payload, registry.metrics()

    ok, _ = run(UNCONFINED, "print('hi')")
    assert (ok.content, ok.is_error) == ("hi\n", False)
    crashed, _ = run(UNCONFINED, "raise ValueError('bad input')")
    assert crashed.is_error and "ValueError: bad input" in crashed.content
    looped, metrics = run(
        Sandbox(time_limit_s=0.5, isolation_available=False, require_isolation=False), "while 1: pass"
    )
    assert looped.is_error and metrics["tools/errors/timeout"] == 1
    refused, _ = run(Sandbox(isolation_available=False), "print('hi')")
    assert refused.is_error and "isolation is required" in refused.content


def test_from_config_takes_the_harness_limits():
    sandbox = Sandbox.from_config(HarnessConfig(name="tools", tool_timeout_s=3.0, require_isolation=False))
    assert (sandbox.time_limit_s, sandbox.require_isolation) == (3.0, False)
