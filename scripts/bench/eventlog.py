"""Benchmark EventLog I/O and the SFT projection against parsing the same trajectories with a plain ADP model.

Two corpora: every ADP sample file (``--data``, imported as EventLogs, repeated ``--copies`` times; large
events, about 3 kB each) and ``--episodes`` generated runtime-like episodes (system, user, 1 to 4 search calls
with results, an answer, a reward; about 200 bytes an event). The ADP baseline parses the same trajectories
(for the runtime-like corpus, the ADP export of the logs) with :class:`agenttune.events.adp.Trajectory`,
one JSON object a line. Timed on one thread as CPU time (other processes on the cores do not count), best of
``--repeat`` runs:

* ``eventlog jsonl write``: serialise and append every log (``EventLogWriter``, fsync off; the fsync'd rate
  is a separate row, since it measures the disk);
* ``eventlog jsonl read``: ``read_jsonl``, which validates every event, branch, call link and tier rule;
* ``eventlog jsonl round trip``: write + read, the figure the 200,000 events/s target refers to;
* ``adp model jsonl write/read/round trip``: the baseline;
* ``sft projection (light)``: :func:`agenttune.events.projections.sft.sft_rows` with the embedded tokenizer
  and the tool-calling template on the first ``--sft-logs`` logs.

The last column is time per log relative to the ADP read of the same corpus. Prints a table and writes JSON
(``--out``, default ``outputs/bench/eventlog.json``). Other processes on the machine skew the numbers: the
load average is recorded with them.

    python scripts/bench/eventlog.py --copies 4 --repeat 5
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from agenttune.config import repo_root  # noqa: E402
from agenttune.events.adp import Trajectory, eventlog_to_trajectory, import_adp, load_adp  # noqa: E402
from agenttune.events.io import EventLogWriter, gc_paused, read_jsonl  # noqa: E402
from agenttune.events.projections.sft import sft_rows  # noqa: E402
from agenttune.events.schema import (  # noqa: E402
    Event,
    EventLog,
    ReasoningPayload,
    RewardPayload,
    SystemPayload,
    TextPayload,
    ToolCallPayload,
    ToolResultPayload,
    TurnCompletePayload,
    UserPayload,
)


def best_of(repeat: int, run: Callable[[], object]) -> tuple[float, float]:
    """The lowest CPU time (``time.process_time``) and the lowest wall time of ``repeat`` calls, in seconds.

    Rates use CPU time, so that other processes competing for the cores do not count against the code.
    """
    cpu, wall = [], []
    for _ in range(repeat):
        start_cpu, start_wall = time.process_time(), time.perf_counter()
        run()
        cpu.append(time.process_time() - start_cpu)
        wall.append(time.perf_counter() - start_wall)
    return min(cpu), min(wall)


def runtime_like_logs(count: int, seed: int = 0) -> list[EventLog]:
    """Episodes shaped like the agent runtime's: system, user, a few search calls with results, an answer."""
    rng = random.Random(seed)
    words = "the contract party shall agreement term law state notice payment section clause".split()

    def sentence(low: int, high: int) -> str:
        return " ".join(rng.choice(words) for _ in range(rng.randint(low, high)))

    logs = []
    for number in range(count):
        events = [
            Event(payload=SystemPayload(text=sentence(10, 30)), actor="system"),
            Event(payload=UserPayload(text=sentence(8, 25)), actor="user"),
        ]
        for turn in range(rng.randint(1, 4)):
            call_id = f"c{turn}"
            events += [
                Event(payload=ReasoningPayload(text=sentence(5, 30)), step=turn),
                Event(
                    payload=ToolCallPayload(
                        call_id=call_id, name="search", arguments={"query": sentence(2, 6)}
                    ),
                    step=turn,
                ),
                Event(
                    payload=ToolResultPayload(
                        call_id=call_id,
                        name="search",
                        content=sentence(20, 60),
                        metadata={"retrieved_ids": [f"d{rng.randint(0, 999)}"]},
                    ),
                    actor="tool",
                    step=turn,
                ),
            ]
        events += [
            Event(payload=TextPayload(text=f"<answer>{sentence(1, 5)}</answer>"), step=turn + 1),
            Event(payload=TurnCompletePayload(), step=turn + 1),
            Event(payload=RewardPayload(scope="episode", name="total", value=rng.random()), actor="judge"),
        ]
        logs.append(EventLog(id=f"ep{number}", source="bench", task_id=f"t{number % 50}", events=events))
    return logs


def measure(
    name: str,
    logs: list[EventLog],
    trajectories: list[Trajectory],
    repeat: int,
    sft_logs: int,
    tokenizer,
    work: Path,
) -> list[dict[str, float | str]]:
    """Time JSONL write/read of ``logs``, the ADP baseline on ``trajectories`` and the SFT projection."""
    n_logs, n_events = len(logs), sum(len(log.events) for log in logs)
    n_steps = sum(len(t.content) for t in trajectories)
    eventlog_file, adp_file = work / f"{name}.jsonl", work / f"{name}.adp.jsonl"

    def write_eventlogs(fsync: bool = False) -> None:
        eventlog_file.unlink(missing_ok=True)
        with EventLogWriter(eventlog_file, fsync=fsync) as out:
            for log in logs:
                out.write(log)

    def read_eventlogs() -> None:
        assert len(read_jsonl(eventlog_file).logs) == n_logs

    def write_adp() -> None:
        with open(adp_file, "wb") as out:
            for trajectory in trajectories:
                out.write(trajectory.model_dump_json(exclude_none=True).encode() + b"\n")

    def read_adp() -> None:
        with (
            open(adp_file, "rb") as source,
            gc_paused(),
        ):  # the same collector pause as read_jsonl: a fair baseline
            assert len([Trajectory.model_validate_json(line) for line in source]) == len(trajectories)

    timings = {"eventlog jsonl write": best_of(repeat, write_eventlogs)[0]}
    # fsync waits on the disk, which CPU time does not see: this row is wall time
    timings["eventlog jsonl write, fsync per log (wall)"] = best_of(1, lambda: write_eventlogs(fsync=True))[1]
    write_eventlogs()
    timings["eventlog jsonl read"] = best_of(repeat, read_eventlogs)[0]
    timings["eventlog jsonl round trip"] = timings["eventlog jsonl write"] + timings["eventlog jsonl read"]
    timings["adp model jsonl write"] = best_of(repeat, write_adp)[0]
    timings["adp model jsonl read"] = best_of(repeat, read_adp)[0]
    timings["adp model jsonl round trip"] = timings["adp model jsonl write"] + timings["adp model jsonl read"]
    baseline = timings["adp model jsonl read"] / len(trajectories)
    sizes = {"eventlog": eventlog_file.stat().st_size, "adp": adp_file.stat().st_size}
    rows = []
    for operation, seconds in timings.items():
        adp = operation.startswith("adp")
        row = _row(name, operation, n_logs, n_steps if adp else n_events, seconds, baseline)
        row["mb_per_s"] = sizes["adp" if adp else "eventlog"] / seconds / 1e6
        rows.append(row)
    sample = logs[:sft_logs]
    seconds = best_of(1, lambda: sft_rows(sample, tokenizer))[0]
    rows.append(
        _row(
            name, "sft projection (light)", len(sample), sum(len(g.events) for g in sample), seconds, baseline
        )
    )
    return rows


def main() -> None:
    root = Path(repo_root())
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=str(root.parent / "shared" / "data" / "adp_samples"))
    parser.add_argument("--copies", type=int, default=4, help="repeat the ADP corpus this many times")
    parser.add_argument("--episodes", type=int, default=2000, help="runtime-like episodes to generate")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per measurement (best kept)")
    parser.add_argument("--sft-logs", type=int, default=60, help="logs for the SFT projection")
    parser.add_argument("--out", default=str(root / "outputs" / "bench" / "eventlog.json"))
    args = parser.parse_args()

    import torch

    from agenttune.config import ModelConfig
    from agenttune.models import load_tokenizer

    torch.set_num_threads(1)
    tokenizer = load_tokenizer(ModelConfig(name="tiny_random", path="tiny_random"), root / ".cache")
    work = Path(tempfile.mkdtemp(prefix="bench_eventlog_"))
    files = sorted(Path(args.data).glob("*.json"))
    adp_logs = [log for path in files for log in import_adp(path)] * args.copies
    adp_trajectories = [t for path in files for t in load_adp(path)] * args.copies
    runtime = runtime_like_logs(args.episodes)
    corpora = {
        "adp samples": (adp_logs, adp_trajectories),
        "runtime-like": (runtime, [eventlog_to_trajectory(log) for log in runtime]),
    }
    rows = []
    for name, (logs, trajectories) in corpora.items():
        rows += measure(name, logs, trajectories, args.repeat, args.sft_logs, tokenizer, work)

    header = f"{'corpus':13} {'operation':38} {'logs/s':>9} {'events/s':>10} {'MB/s':>7} {'time/log vs ADP read':>21}"
    print(header)
    print("-" * len(header))
    for row in rows:
        print(
            f"{row['corpus']:13} {row['operation']:38} {row['logs_per_s']:>9,.0f} {row['events_per_s']:>10,.0f} "
            f"{row.get('mb_per_s', 0):>7.1f} {row['ratio']:>20.2f}x"
        )
    summary = {
        name: {
            "logs": len(logs),
            "events": sum(len(log.events) for log in logs),
            "adp_steps": sum(len(t.content) for t in ts),
        }
        for name, (logs, ts) in corpora.items()
    }
    result = {
        "corpora": summary,
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "load_avg": os.getloadavg()},
        "target_round_trip_events_per_s": 200_000,
        "results": rows,
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2))
    print(f"load average during the run: {os.getloadavg()}; wrote {out}")


def _row(
    corpus: str, operation: str, logs: int, events: int, seconds: float, baseline_per_log: float
) -> dict:
    """One table row: rates and time per log relative to the ADP read."""
    return {
        "corpus": corpus,
        "operation": operation,
        "seconds": seconds,
        "logs_per_s": logs / seconds,
        "events_per_s": events / seconds,
        "ratio": (seconds / logs) / baseline_per_log,
    }


if __name__ == "__main__":
    main()
