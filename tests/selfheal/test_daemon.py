"""self_heal.mode=daemon: ingests a watched folder while a round runs in a background thread; stops on SIGTERM."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

from agenttune.events import write_jsonl
from tests.events.builders import search_episode

# A daemon whose round takes 1.5 s: the test adds a file while it runs, then sends SIGTERM.
SCRIPT = """
import json, sys, time
from agenttune.selfheal.daemon import Daemon
from agenttune.selfheal.detect import detect_failures

def heal(failures):
    print("round started", flush=True)
    time.sleep(1.5)
    return {"self_heal/round": 1, "failures": len(failures)}

daemon = Daemon(sys.argv[1], lambda logs: detect_failures(logs, "total", 0.5), heal, lambda logs: {}, min_failures=2,
                poll_s=0.1)
results = daemon.run()
print(json.dumps({"ingested": daemon.ingested, "rounds": daemon.rounds, "results": results}), flush=True)
"""


def test_daemon_heals_in_the_background_and_stops_cleanly_on_sigterm(tmp_path):
    watch = tmp_path / "incoming"
    write_jsonl([search_episode(log_id=f"f{i}", reward=0.0) for i in range(2)], watch / "a.jsonl")
    process = subprocess.Popen(
        [sys.executable, "-c", SCRIPT, str(watch)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert process.stdout.readline().strip() == "round started"
    write_jsonl(
        [search_episode(log_id="ok", reward=1.0), search_episode(log_id="f3", reward=0.0)], watch / "b.jsonl"
    )
    time.sleep(0.5)  # the main thread keeps ingesting while the round runs
    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    report = json.loads(out.strip().splitlines()[-1])
    assert report["ingested"] == 4 and report["rounds"] == 1  # the running round finished before it stopped
    assert report["results"] == [{"self_heal/round": 1, "failures": 2}]
