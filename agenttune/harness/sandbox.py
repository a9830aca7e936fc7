"""Run untrusted Python in a confined child process: the ``python_exec`` code tool.

The child is a fresh interpreter (``python -I``) reading the program from stdin. On Linux it is confined with
util-linux's ``unshare`` (new PID, mount, network, IPC and UTS namespaces; a user namespace too when the caller is
not root) and :mod:`agenttune.harness.confine`, which sets the rest up inside before the program starts:

==============  =====================================================================================================
environment     only ``PATH``, ``HOME``, ``TMPDIR``, ``LANG`` and ``PYTHONIOENCODING``; its own PID namespace and
                ``/proc`` show no other process, so no ``/proc/<pid>/environ`` (the caller's API keys) is readable
network         a network namespace of its own with no interface up: nothing connects out, abstract sockets included
file system     read-only system libraries and Python installation, nothing else of the host (pivot_root); the
                only writable place is ``/scratch`` (its working folder, also ``/tmp``), a tmpfs of ``scratch_mb``
identity        an unprivileged uid in a user namespace of its own, no capabilities, ``no_new_privs``
processes       at most ``max_processes`` (``RLIMIT_NPROC``, counted in the sandbox's own user namespace; threads
                count too)
memory          ``RLIMIT_AS`` of ``memory_limit_mb`` per process (a large allocation raises ``MemoryError``)
output          past ``max_output_bytes`` on stdout or stderr the child is killed
time            at ``time_limit_s`` the whole tree is killed: the namespace's first process is killed, which kills
                every process of the PID namespace, ``setsid`` and double-forked grandchildren included
==============  =====================================================================================================

Where that confinement is unavailable (not Linux, no ``unshare``, user namespaces disabled) and
``require_isolation`` is set (the default, ``harness.require_isolation``), :meth:`Sandbox.run` raises
:class:`IsolationUnavailable` saying why, and nothing runs. ``require_isolation=False`` is an explicit opt-out for
such machines: the program then runs unconfined in a child process (own session, empty working folder, the
environment above) with the time, memory and output limits only, and a ``setsid`` grandchild can outlive it.

:meth:`Sandbox.python_exec` is a tool for :class:`agenttune.harness.tools.ToolRegistry` (``harness=tools`` with
``harness.code_execution=true`` offers it): a failed run raises, and the registry turns the exception into a
TOOL_RESULT with ``is_error=True`` (a time-out counts as ``timeout``, because :class:`SandboxTimeout` is a
``TimeoutError``).
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from agenttune.config import HarnessConfig
from agenttune.harness import confine

MAX_OUTPUT_CHARS = 8000  # of each stream, shown to the model
SYSTEM_PATHS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
PROGRAM_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONIOENCODING": "utf-8"}


class SandboxError(RuntimeError):
    """The code did not run to a clean exit."""


class SandboxTimeout(SandboxError, TimeoutError):
    """The wall-clock limit passed; the child was killed."""


class IsolationUnavailable(SandboxError):
    """Isolation was required but this machine (or this call) cannot provide it."""


@dataclass(frozen=True)
class SandboxResult:
    stdout: str
    stderr: str
    returncode: int | None  # None when the child was killed (time or output limit)
    timed_out: bool
    seconds: float
    output_exceeded: bool = False


def _truncate(text: str) -> str:
    if len(text) <= MAX_OUTPUT_CHARS:
        return text
    return text[:MAX_OUTPUT_CHARS] + f"\n... [{len(text) - MAX_OUTPUT_CHARS} more characters cut]"


def _read_only_paths() -> list[str]:
    """The host paths the program sees (read-only): system libraries and this Python (its venv included)."""
    wanted = sorted({p for p in (*SYSTEM_PATHS, sys.base_prefix, sys.prefix) if os.path.lexists(p)})
    kept: list[str] = []
    for path in wanted:
        if not any(path.startswith(outer.rstrip("/") + "/") for outer in kept):
            kept.append(path)
    return kept


@functools.cache
def confinement_problem() -> str | None:
    """Why this machine cannot confine a program (None when it can); probed once per process."""
    if not sys.platform.startswith("linux"):
        return f"the sandbox confines code with Linux namespaces; this is {sys.platform}"
    if shutil.which("unshare") is None:
        return "util-linux 'unshare' is not on PATH (apt-get install util-linux)"
    try:
        probe = Sandbox(time_limit_s=30)._execute("print('confined')", confined=True)
    except (OSError, IsolationUnavailable) as error:
        return str(error)
    if probe.stdout != "confined\n":
        return f"a probe program did not run confined: {(probe.stderr or probe.stdout).strip()[:300]}"
    return None


@dataclass(frozen=True)
class Sandbox:
    """Limits and confinement for running code in a child process (see the module docstring).

    Args:
        time_limit_s: wall-clock seconds before the child's whole process tree is killed.
        memory_limit_mb: address-space limit of each process (``RLIMIT_AS``).
        require_isolation: refuse to run (raise :class:`IsolationUnavailable`) when the child cannot be confined.
        isolation_available: ``None`` detects it; ``False`` behaves as on a machine without it (for tests and for
            deployments that must not rely on it).
        max_processes: processes and threads the program may have at once.
        max_output_bytes: bytes of stdout, and of stderr, past which the child is killed.
        scratch_mb: size of the writable ``/scratch``.
    """

    time_limit_s: float = 10.0
    memory_limit_mb: int = 512
    require_isolation: bool = True
    isolation_available: bool | None = None
    max_processes: int = 64
    max_output_bytes: int = 1_000_000
    scratch_mb: int = 64

    @classmethod
    def from_config(cls, cfg: HarnessConfig, memory_limit_mb: int = 512) -> Sandbox:
        """Time limit from ``tool_timeout_s`` and ``require_isolation`` from the harness config."""
        return cls(cfg.tool_timeout_s, memory_limit_mb, cfg.require_isolation)

    def _confined(self) -> bool:
        """Whether to confine: raises :class:`IsolationUnavailable` when required but impossible."""
        problem = "isolation_available=False" if self.isolation_available is False else confinement_problem()
        if problem is None:
            return True
        if self.require_isolation:
            raise IsolationUnavailable(
                f"refusing to run code: isolation is required (harness.require_isolation) but unavailable: {problem}"
            )
        return False

    def _confined_command(self, folder: Path) -> list[str]:
        root = folder / "root"
        root.mkdir()
        spec = {
            "root": str(root),
            "read_only": _read_only_paths(),
            "scratch_mb": self.scratch_mb,
            "memory_mb": self.memory_limit_mb,
            "max_processes": self.max_processes,
            "uid": confine.SANDBOX_UID if os.geteuid() == 0 else None,
            "argv": [sys.executable, "-I", "-"],
            "env": {**PROGRAM_ENV, "HOME": "/scratch", "TMPDIR": "/scratch"},
        }
        user = [] if os.geteuid() == 0 else ["--user", "--map-root-user"]
        namespaces = ["--mount", "--pid", "--fork", "--kill-child", "--net", "--ipc", "--uts", *user]
        return ["unshare", *namespaces, "--", sys.executable, "-I", "-S", confine.__file__, json.dumps(spec)]

    def _limit_memory(self) -> None:
        """Runs in an unconfined child between fork and exec."""
        import resource

        limit = self.memory_limit_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    def run(self, code: str) -> SandboxResult:
        """Run ``code`` and return what it printed; raises :class:`IsolationUnavailable` (see the module doc)."""
        return self._execute(code, self._confined())

    def _execute(self, code: str, confined: bool) -> SandboxResult:
        with tempfile.TemporaryDirectory(prefix="agenttune-sandbox-") as folder:
            if confined:
                command, options = (
                    self._confined_command(Path(folder)),
                    {"env": {"PATH": PROGRAM_ENV["PATH"]}},
                )
            else:
                env = {**PROGRAM_ENV, "HOME": folder, "TMPDIR": folder}
                command, options = [sys.executable, "-I", "-"], {"env": env, "cwd": folder}
                options["preexec_fn"] = self._limit_memory if os.name == "posix" else None
            started = time.perf_counter()
            child = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=os.name == "posix",
                **options,
            )
            stdout, stderr, timed_out, exceeded = self._communicate(
                child, code.encode("utf-8", "surrogatepass")
            )
        seconds = time.perf_counter() - started
        out, err = (data.decode("utf-8", errors="replace") for data in (stdout, stderr))
        if confined and child.returncode == confine.SETUP_FAILED and err.startswith(confine.MARKER):
            raise IsolationUnavailable(f"could not confine the program: {err.strip()}")
        killed = timed_out or exceeded
        return SandboxResult(
            stdout=_truncate(out),
            stderr=_truncate(err),
            returncode=None if killed else child.returncode,
            timed_out=timed_out,
            seconds=seconds,
            output_exceeded=exceeded,
        )

    def _communicate(self, child: subprocess.Popen, code: bytes) -> tuple[bytes, bytes, bool, bool]:
        """Feed ``code`` and read both streams until the child ends, the time limit passes or a stream passes
        ``max_output_bytes``; returns (stdout, stderr, timed out, output exceeded)."""
        exceeded = threading.Event()
        output: dict[str, bytes] = {}

        def feed() -> None:
            try:
                child.stdin.write(code)
                child.stdin.close()
            except OSError:  # the child ended (or was killed) before reading it all
                pass

        def drain(name: str, stream) -> None:
            data = bytearray()
            while chunk := stream.read1(65536):
                data += chunk
                if len(data) > self.max_output_bytes:
                    exceeded.set()
                    self._kill(child)
                    break
            output[name] = bytes(data[: self.max_output_bytes])

        threads = [
            threading.Thread(target=feed, daemon=True),
            threading.Thread(target=drain, args=("stdout", child.stdout), daemon=True),
            threading.Thread(target=drain, args=("stderr", child.stderr), daemon=True),
        ]
        for thread in threads:
            thread.start()
        try:
            child.wait(timeout=self.time_limit_s)
            timed_out = False
        except subprocess.TimeoutExpired:
            timed_out = True
        self._kill(child)  # after a clean exit too: whatever it left behind goes
        child.wait()
        for thread in threads:
            thread.join(timeout=5)  # unconfined, a daemonised grandchild can hold the pipes open
        return output.get("stdout", b""), output.get("stderr", b""), timed_out, exceeded.is_set()

    @staticmethod
    def _kill(child: subprocess.Popen) -> None:
        """Kill the child's tree: the first process of its PID namespace (``unshare``'s child), then its session."""
        if os.name != "posix":
            child.kill()
            return
        children = Path(f"/proc/{child.pid}/task/{child.pid}/children")
        try:
            pids = [int(pid) for pid in children.read_text().split()]
        except OSError:  # gone already, or no /proc
            pids = []
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            os.killpg(child.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def python_exec(self, code: str) -> str:
        """Run a Python program in a sandbox and return what it printed.

        The program runs in a fresh, confined interpreter with time, memory, process and output limits, no network,
        and a writable scratch folder as its working directory; use print() to show results.

        Args:
            code: The complete Python program to run.
        """
        result = self.run(code)
        if result.timed_out:
            raise SandboxTimeout(f"timed out after {self.time_limit_s:g} s; the program was killed")
        if result.output_exceeded:
            raise SandboxError(
                f"the program wrote more than {self.max_output_bytes} bytes of output and was killed"
            )
        if result.returncode != 0:
            raise SandboxError(
                f"the program exited with status {result.returncode}:\n{result.stderr.strip()}"
            )
        if result.stderr.strip():
            return f"{result.stdout}\n[stderr]\n{result.stderr}"
        return result.stdout or "(the program printed nothing)"
