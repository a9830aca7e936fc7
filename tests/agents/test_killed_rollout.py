"""A rollout killed with SIGKILL leaves EventLogs that load: every finished episode, the torn tail reported."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

from agenttune.config import repo_root
from agenttune.events import read_jsonl

ROLLOUT = textwrap.dedent(
    """
    import sys, time
    from agenttune.agents.episode import run_episodes
    from agenttune.agents.strategies import ReAct
    from agenttune.agents.toy import CalculatorHarness, calculator_policy, tasks
    from agenttune.engines.scripted import ScriptedEngine
    from agenttune.events import EventLogWriter

    def slow_policy(conversation, tools):
        time.sleep(0.05)
        return calculator_policy(conversation, tools)

    with EventLogWriter(sys.argv[1]) as writer:
        for round_ in range(1000):  # far more than the test waits for: it is killed mid-rollout
            run_episodes(ScriptedEngine(slow_policy), CalculatorHarness, ReAct(), tasks(4), writer=writer.write)
    """
)


def test_sigkill_mid_rollout_leaves_loadable_logs(tmp_path):
    path = tmp_path / "episodes.jsonl"
    child = subprocess.Popen([sys.executable, "-c", ROLLOUT, str(path)], cwd=repo_root())
    try:
        deadline = time.time() + 120
        while time.time() < deadline and (not path.exists() or path.read_bytes().count(b"\n") < 6):
            time.sleep(0.1)
        assert child.poll() is None, "the rollout must still be running when it is killed"
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
    with path.open("ab") as handle:  # what a write cut short by the kill leaves behind
        handle.write(b'{"schema_version": "1.1", "id": "torn", "ev')
    contents = read_jsonl(path, strict=False)
    assert len(contents.logs) >= 6
    assert all(log.events for log in contents.logs)
    assert [issue.line for issue in contents.issues] == [len(contents.logs) + 1]
    assert contents.issues[0].torn
