"""``pipeline=self_heal``: find failures in EventLogs and heal the policy behind the gate (:mod:`agenttune.selfheal`).

``self_heal.mode=once`` reads ``self_heal.logs`` (EventLog files or folders: a run's ``eventlogs/``, a workflow's
``audit.jsonl``); with none given it first observes the current policy on the benchmark's train tasks
(``eventlogs/observed.jsonl``). It detects the failures, runs one healing round and writes its outcome, the
failure counts and the gate's before/after numbers (``gate/current/*``, ``gate/candidate/*``) to the summary.
``self_heal.mode=daemon`` watches ``self_heal.watch_dir`` and heals in a background thread until SIGTERM
(:mod:`agenttune.selfheal.daemon`).

    python train.py pipeline=self_heal                       # CUAD: observe, heal from the teacher, gate
    python train.py pipeline=self_heal self_heal.logs=[outputs/.../eventlogs/eval.jsonl]
    python train.py pipeline=self_heal self_heal.mode=daemon self_heal.watch_dir=incoming/
"""

from __future__ import annotations

import logging
from functools import partial

from omegaconf import DictConfig

from agenttune.benchmarks.base import load_benchmark
from agenttune.selfheal.daemon import Daemon
from agenttune.selfheal.detect import detect_failures, read_episodes
from agenttune.selfheal.heal import Healer
from agenttune.stages.phases import scored_episodes
from agenttune.tracking.run import RunContext

log = logging.getLogger(__name__)
MODES = ("once", "daemon")


def run(cfg: DictConfig, run: RunContext) -> None:
    s = cfg.self_heal
    if s.mode not in MODES:
        raise ValueError(f"self_heal.mode={s.mode!r}; choose one of {list(MODES)}")
    if s.mode == "daemon" and not s.watch_dir:
        raise ValueError(
            "self_heal.mode=daemon needs self_heal.watch_dir (the folder of EventLogs it watches)"
        )
    benchmark = load_benchmark(cfg)
    healer = Healer(cfg, run, benchmark)
    detect = partial(detect_failures, reward=s.reward, threshold=s.reward_threshold)
    if s.mode == "daemon":
        daemon = Daemon(
            s.watch_dir, detect, healer.heal, healer.observe, s.min_failures, s.poll_s, s.max_rounds
        )
        results = daemon.run()
        run.set_summary({"self_heal/ingested": daemon.ingested, "self_heal/rounds": daemon.rounds})
        for result in results:
            run.set_summary(_printable(result))
        return
    logs = read_episodes(s.logs) if s.logs else observe_current(cfg, run, benchmark, healer)
    failures = detect(logs)
    summary = healer.heal(failures) | {"self_heal/episodes": len(logs)}
    run.log({k: v for k, v in summary.items() if isinstance(v, int | float) and not isinstance(v, bool)})
    run.set_summary(_printable(summary))
    log.info("self-heal: %s", summary.get("self_heal/outcome"))


def observe_current(cfg: DictConfig, run: RunContext, benchmark, healer: Healer):
    """The current policy's episodes on the benchmark's train tasks (``eventlogs/observed.jsonl``)."""
    model, tokenizer = healer.load_policy()
    tasks = list(benchmark.tasks("train"))
    engine = healer.engine(model, tokenizer)
    logs, _ = scored_episodes(cfg, benchmark, engine, tasks, path=run.eventlog_dir / "observed.jsonl")
    return logs


def _printable(summary: dict) -> dict:
    return {
        k: v if isinstance(v, int | float | str | bool | type(None)) else str(v) for k, v in summary.items()
    }
