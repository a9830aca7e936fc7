"""tau2 episodes reach the writer the moment each ends, recorded (scored, with their tau2 metadata), before the next
task's episode starts."""

from __future__ import annotations

import pytest

pytest.importorskip("tau2.domains.retail.environment")

from agenttune.benchmarks.tau2.harness import Tau2Harness  # noqa: E402
from agenttune.benchmarks.tau2.oracle import scripted_agent  # noqa: E402
from agenttune.benchmarks.tau2.runner import run_tasks  # noqa: E402


def test_each_tau2_episode_is_written_as_it_ends():
    tasks = Tau2Harness("retail").tasks("base")[:2]
    written = []
    oracle = scripted_agent("oracle")
    playing = []

    def agent(task):
        playing.append(len(written))  # how many episodes were written when this task started to play
        return oracle(task)

    logs = run_tasks(agent, lambda: Tau2Harness("retail"), tasks, "retail", "oracle", writer=written.append)
    assert playing == [0, 1], "the first episode is written before the second one plays"
    assert written == logs
    assert [log.metadata["domain"] for log in written] == ["retail", "retail"]
    assert [log.metadata["reward"] for log in written] == [1.0, 1.0]
