"""``self_heal.mode=daemon``: watch a folder of EventLog files, ingest what appears, heal in a background thread.

The main thread scans ``watch_dir`` every ``poll_s`` seconds and reads each ``.jsonl`` file once it is new or has
grown (only its complete lines: a file being written is read again when it grows). Ingested episodes go to
``observe`` (the deployed policy's post-deployment check) and their failures join a pool; when the pool holds
``min_failures`` and no round is running, a round starts in a background thread on the pool's failures while the
main thread keeps ingesting. SIGTERM (or SIGINT) stops the loop: the running round finishes, the thread is joined
and :meth:`Daemon.run` returns normally. ``max_rounds`` > 0 stops after that many rounds.
"""

from __future__ import annotations

import logging
import signal
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from agenttune.events.io import read_jsonl
from agenttune.events.schema import EventLog
from agenttune.selfheal.detect import Failure

log = logging.getLogger(__name__)


class Daemon:
    def __init__(
        self,
        watch_dir: str | Path,
        detect: Callable[[Sequence[EventLog]], list[Failure]],
        heal: Callable[[Sequence[Failure]], dict[str, Any]],
        observe: Callable[[Sequence[EventLog]], dict[str, Any]],
        min_failures: int,
        poll_s: float = 1.0,
        max_rounds: int = 0,
    ) -> None:
        self.watch_dir = Path(watch_dir)
        self.detect, self.heal, self.observe = detect, heal, observe
        self.min_failures, self.poll_s, self.max_rounds = min_failures, poll_s, max_rounds
        self.stop = threading.Event()
        self.pool: list[Failure] = []
        self.results: list[dict[str, Any]] = []
        self.ingested = 0
        self.rounds = 0
        self._seen: dict[Path, int] = {}  # file -> logs already read
        self._worker: threading.Thread | None = None

    def scan(self) -> list[EventLog]:
        """Logs of new or grown files since the last scan."""
        fresh = []
        for path in sorted(self.watch_dir.rglob("*.jsonl")):
            logs = read_jsonl(path, strict=False).logs
            fresh += logs[self._seen.get(path, 0) :]
            self._seen[path] = len(logs)
        return fresh

    def step(self) -> None:
        """One scan: ingest, then start a round when the pool is large enough and no round runs."""
        logs = self.scan()
        if logs:
            self.ingested += len(logs)
            observed = self.observe(logs)
            if observed:
                self.results.append(observed)
            self.pool += self.detect(logs)
        idle = self._worker is None or not self._worker.is_alive()
        if idle and len(self.pool) >= self.min_failures and not self._rounds_done():
            batch, self.pool = self.pool, []
            self._worker = threading.Thread(target=self._round, args=(batch,), name="self-heal", daemon=False)
            self._worker.start()

    def _round(self, batch: list[Failure]) -> None:
        try:
            self.results.append(self.heal(batch))
        except Exception as error:  # a failed round is reported; the daemon keeps watching
            log.exception("self-heal round failed")
            self.results.append({"self_heal/outcome": f"failed: {type(error).__name__}: {error}"})
        finally:
            self.rounds += 1

    def _rounds_done(self) -> bool:
        return self.max_rounds > 0 and self.rounds >= self.max_rounds

    def run(self) -> list[dict[str, Any]]:
        """Watch until SIGTERM/SIGINT (or ``max_rounds``); the results of every round and observation."""
        previous = {sig: signal.signal(sig, self._on_signal) for sig in (signal.SIGTERM, signal.SIGINT)}
        try:
            while not self.stop.is_set():
                self.step()
                if self._rounds_done() and not (self._worker and self._worker.is_alive()):
                    break
                self.stop.wait(self.poll_s)
        finally:
            if self._worker is not None:
                self._worker.join()
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        log.info("self-heal daemon stopped: %d logs ingested, %d results", self.ingested, len(self.results))
        return self.results

    def _on_signal(self, signum, frame) -> None:
        log.info("self-heal daemon: signal %d, stopping after the running round", signum)
        self.stop.set()
