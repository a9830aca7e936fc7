"""Run untrusted Python in a child process with a wall-clock limit and a memory limit.

The child is a fresh interpreter (``python -I``, isolated mode) in an empty temporary folder, in its own
process group, reading the code from stdin. Before it starts, ``preexec_fn`` sets ``RLIMIT_AS`` (address
space) so a large allocation fails inside the child with ``MemoryError``; when the wall-clock limit passes the
whole process group is killed. Both need POSIX and the ``resource`` module (Linux, macOS).

When that isolation is unavailable (no ``resource`` module, or ``setrlimit`` fails in the child) and
``require_isolation`` is set, :meth:`Sandbox.run` raises :class:`IsolationUnavailable`; without it the code
runs in a child process with the time limit only. Code never runs in the calling process.

:meth:`Sandbox.python_exec` is a tool for :class:`agenttune.harness.tools.ToolRegistry`: a failed run raises,
and the registry turns the exception into a TOOL_RESULT with ``is_error=True`` (a time-out counts as
``timeout``, because :class:`SandboxTimeout` is a ``TimeoutError``).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

from agenttune.config import HarnessConfig

try:
    import resource
except ImportError:  # not POSIX
    resource = None

MAX_OUTPUT_CHARS = 8000


class SandboxError(RuntimeError):
    """The code did not run to a clean exit."""


class SandboxTimeout(SandboxError, TimeoutError):
    """The wall-clock limit passed; the child was killed."""


class IsolationUnavailable(SandboxError):
    """Isolation was required but this platform (or this call) cannot provide it."""


@dataclass(frozen=True)
class SandboxResult:
    stdout: str
    stderr: str
    returncode: int | None  # None when the child was killed at the time limit
    timed_out: bool
    seconds: float


def _truncate(text: str) -> str:
    if len(text) <= MAX_OUTPUT_CHARS:
        return text
    return text[:MAX_OUTPUT_CHARS] + f"\n... [{len(text) - MAX_OUTPUT_CHARS} more characters cut]"


@dataclass(frozen=True)
class Sandbox:
    """Limits for running code in a child process.

    Args:
        time_limit_s: wall-clock seconds before the child's process group is killed.
        memory_limit_mb: address-space limit of the child (``RLIMIT_AS``).
        require_isolation: refuse to run (raise :class:`IsolationUnavailable`) when limits cannot be set.
        isolation_available: ``None`` detects it (POSIX with ``resource``); ``False`` behaves as on a platform
            without it (for tests and for deployments that must not rely on it).
    """

    time_limit_s: float = 10.0
    memory_limit_mb: int = 512
    require_isolation: bool = True
    isolation_available: bool | None = None

    @classmethod
    def from_config(cls, cfg: HarnessConfig, memory_limit_mb: int = 512) -> Sandbox:
        """Time limit from ``tool_timeout_s`` and ``require_isolation`` from the harness config."""
        return cls(cfg.tool_timeout_s, memory_limit_mb, cfg.require_isolation)

    def _can_isolate(self) -> bool:
        detected = resource is not None and os.name == "posix"
        return detected if self.isolation_available is None else self.isolation_available and detected

    def _limit_memory(self) -> None:
        """Runs in the child between fork and exec."""
        limit = self.memory_limit_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    def run(self, code: str) -> SandboxResult:
        """Run ``code`` and return what it printed; raises :class:`IsolationUnavailable` (see the module doc)."""
        isolated = self._can_isolate()
        if not isolated and self.require_isolation:
            raise IsolationUnavailable(
                "refusing to run code: isolation is required (harness.require_isolation) but memory limits "
                "cannot be set here (needs POSIX setrlimit)"
            )
        with tempfile.TemporaryDirectory(prefix="agenttune-sandbox-") as workdir:
            started = time.perf_counter()
            try:
                child = subprocess.Popen(
                    [sys.executable, "-I", "-"],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                    cwd=workdir,
                    env={"PATH": os.environ.get("PATH", ""), "PYTHONIOENCODING": "utf-8"},
                    preexec_fn=self._limit_memory if isolated else None,
                    start_new_session=os.name == "posix",
                )
            except subprocess.SubprocessError as exc:  # setrlimit failed in the child
                raise IsolationUnavailable(f"could not set the memory limit in the child: {exc}") from exc
            try:
                stdout, stderr = child.communicate(code, timeout=self.time_limit_s)
                timed_out = False
            except subprocess.TimeoutExpired:
                self._kill(child)
                stdout, stderr = child.communicate()
                timed_out = True
        return SandboxResult(
            stdout=_truncate(stdout),
            stderr=_truncate(stderr),
            returncode=None if timed_out else child.returncode,
            timed_out=timed_out,
            seconds=time.perf_counter() - started,
        )

    @staticmethod
    def _kill(child: subprocess.Popen) -> None:
        if os.name == "posix":
            os.killpg(
                child.pid, signal.SIGKILL
            )  # the child leads its own session: this takes its children too
        else:
            child.kill()

    def python_exec(self, code: str) -> str:
        """Run a Python program in a sandbox and return what it printed.

        The program runs in a fresh interpreter with a time limit and a memory limit; use print() to show
        results.

        Args:
            code: The complete Python program to run.
        """
        result = self.run(code)
        if result.timed_out:
            raise SandboxTimeout(f"timed out after {self.time_limit_s:g} s; the program was killed")
        if result.returncode != 0:
            raise SandboxError(
                f"the program exited with status {result.returncode}:\n{result.stderr.strip()}"
            )
        if result.stderr.strip():
            return f"{result.stdout}\n[stderr]\n{result.stderr}"
        return result.stdout or "(the program printed nothing)"
