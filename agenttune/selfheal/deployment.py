"""The deployed policy: a folder replaced only with a backup of what it held, restored on a regression."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any


class Deployment:
    """``<folder>/current`` is the deployed policy, ``<folder>/backup`` the one before it, ``history.jsonl`` every
    deployment and rollback."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        self.current, self.backup = self.folder / "current", self.folder / "backup"

    def deploy(self, candidate: str | Path, numbers: dict[str, Any]) -> None:
        """Move the current policy to ``backup`` (replacing the older backup), then copy ``candidate`` in."""
        self.folder.mkdir(parents=True, exist_ok=True)
        if self.current.exists():
            shutil.rmtree(self.backup, ignore_errors=True)
            self.current.rename(self.backup)
        shutil.copytree(candidate, self.current)
        self._record({"event": "deploy", "candidate": str(candidate), **numbers})

    def rollback(self, why: str) -> bool:
        """Put the backup back in place; False when there is none."""
        if not self.backup.exists():
            return False
        shutil.rmtree(self.current, ignore_errors=True)
        self.backup.rename(self.current)
        self._record({"event": "rollback", "why": why})
        return True

    def check_after_deployment(
        self, expected_success: float, observed_success: float, tolerance: float
    ) -> bool:
        """Roll back when the deployed policy's observed success fell more than ``tolerance`` below what the gate
        measured; True when it rolled back."""
        if observed_success < expected_success - tolerance:
            return self.rollback(
                f"success {observed_success:.3f} after deployment, {expected_success:.3f} expected"
            )
        return False

    def _record(self, entry: dict[str, Any]) -> None:
        with open(self.folder / "history.jsonl", "a") as handle:
            handle.write(json.dumps(entry, default=str) + "\n")
