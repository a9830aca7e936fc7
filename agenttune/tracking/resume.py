"""What a ``resume=true`` job continues from.

A run folder is new for every job (``outputs/<task>/runs/<time>``), so resuming looks at the sibling folders of
this run, newest first (:func:`plan_resume`):

1. an earlier run of the same config (compared key by key with its ``.hydra/config.yaml``, which a killed run
   has too; keys in :data:`BOOKKEEPING`, how often a run logs and saves, never change what it trains and are not
   compared): when it completed, there is nothing to do and the job says so and stops; otherwise the job
   continues from its newest complete checkpoint (:func:`~agenttune.training.checkpoints.last_checkpoint`, which
   skips incomplete ones with a warning);
2. else an earlier run whose config differs only in keys that allow continuing (:data:`CONTINUABLE`: a larger
   ``algorithm.max_steps``): the job continues from its newest checkpoint to the new ``max_steps`` and names the
   keys;
3. else the job starts fresh, naming the keys in which the newest earlier run differs.

A killed run of the same config is also where a resumed job finds the evaluations it need not play again
(:func:`recorded_episodes`): in a phase whose policy the config fixes (the starting policy, a cached warm start,
a selected checkpoint), the pipelines take every episode the killed run finished and play only the others. A
phase whose episodes do not depend on the seed either (a greedy policy the config fixes, on a deterministic
benchmark) also takes them from the runs whose config differs in ``seed`` alone (``seed_siblings``): the other
seeds of a study evaluate the same starting policy once.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf

from agenttune.events.io import read_jsonl
from agenttune.events.schema import EventLog
from agenttune.tracking.run import DIGEST_EXCLUDES
from agenttune.training.checkpoints import last_checkpoint

# Keys that change how often a run logs and saves, never what it trains: a run that differs only in these is
# the same run (a study that starts saving more often still finds the jobs it completed before).
BOOKKEEPING = frozenset({"algorithm.save_steps", "algorithm.save_total_limit", "algorithm.logging_steps"})
# Keys whose change still lets a run continue another's checkpoint: (old, new) -> allowed.
CONTINUABLE: dict[str, Callable[[Any, Any], bool]] = {"algorithm.max_steps": lambda old, new: new > old}
SHOWN_KEYS = 6  # differing keys named in a message


@dataclass(frozen=True)
class ResumePlan:
    """What a ``resume=true`` job does: continue from ``checkpoint``, or nothing when ``completed_run`` already
    ran this config to the end, or start fresh (both None); ``message`` says which, and why. ``killed_run`` is
    the newest earlier run of the same config that did not complete (its recorded evaluations can be reused);
    ``seed_siblings`` the earlier runs, newest first, whose config differs in ``seed`` alone (and the keys set to
    ``${seed}``, such as ``algorithm.seed``)."""

    checkpoint: str | None
    completed_run: Path | None
    message: str
    killed_run: Path | None = None
    seed_siblings: tuple[Path, ...] = ()


def flat_config(cfg: DictConfig, resolve: bool = True) -> dict[str, Any]:
    """The config (resolved unless ``resolve`` is false) as ``dotted.key -> value``, without what
    :data:`DIGEST_EXCLUDES` leaves out of the digest (works on an earlier run's ``.hydra/config.yaml`` too)."""
    kept = [key for key in cfg if key not in (*DIGEST_EXCLUDES, "hydra")]
    flat: dict[str, Any] = {}

    def walk(node: Any, prefix: str) -> None:
        if isinstance(node, dict) and node:
            for key, value in node.items():
                walk(value, f"{prefix}{key}.")
        else:
            flat[prefix[:-1]] = node

    walk(OmegaConf.to_container(OmegaConf.masked_copy(cfg, kept), resolve=resolve), "")
    return flat


def differences(old: dict[str, Any], new: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    """``key -> (old value, new value)`` for every key outside :data:`BOOKKEEPING` whose value differs (a missing
    key is None)."""
    keys = sorted((set(old) | set(new)) - BOOKKEEPING)
    return {key: (old.get(key), new.get(key)) for key in keys if old.get(key) != new.get(key)}


def describe(changed: dict[str, tuple[Any, Any]]) -> str:
    shown = [f"{key} ({old!r} -> {new!r})" for key, (old, new) in list(changed.items())[:SHOWN_KEYS]]
    more = len(changed) - SHOWN_KEYS
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "")


def completed(folder: Path) -> bool:
    try:
        return json.loads((folder / "summary.json").read_text()).get("status") == "completed"
    except (OSError, ValueError):
        return False


def plan_resume(cfg: DictConfig, run_dir: str | Path, checkpoint_subdir: str = "checkpoints") -> ResumePlan:
    """What a ``resume=true`` job in ``run_dir`` continues from (see the module docstring)."""
    run_dir = Path(run_dir).resolve()
    current = flat_config(cfg)
    earlier = []
    for folder in sorted((p for p in run_dir.parent.iterdir() if p.is_dir() and p != run_dir), reverse=True):
        config_file = folder / ".hydra" / "config.yaml"
        if config_file.exists():
            earlier.append((folder, differences(flat_config(OmegaConf.load(config_file)), current)))
    seeded = {"seed"} | {key for key, value in flat_config(cfg, resolve=False).items() if value == "${seed}"}
    siblings = tuple(folder for folder, changed in earlier if "seed" in changed and set(changed) <= seeded)
    return replace(_plan(earlier, run_dir, checkpoint_subdir), seed_siblings=siblings)


def _plan(
    earlier: list[tuple[Path, dict[str, tuple[Any, Any]]]], run_dir: Path, checkpoint_subdir: str
) -> ResumePlan:
    """The plan from the earlier runs (newest first) and how each one's config differs from this job's."""
    killed_run = None
    for folder, changed in earlier:
        if changed:
            continue
        if completed(folder):
            return ResumePlan(None, folder, f"{folder} already completed this config: nothing to do")
        killed_run = killed_run or folder
        checkpoint = last_checkpoint(folder / checkpoint_subdir)
        if checkpoint is not None:
            return ResumePlan(checkpoint, None, f"continuing {folder} from {checkpoint}", killed_run)
    for folder, changed in earlier:
        if changed and all(
            key in CONTINUABLE and CONTINUABLE[key](*values) for key, values in changed.items()
        ):
            checkpoint = last_checkpoint(folder / checkpoint_subdir)
            if checkpoint is not None:
                return ResumePlan(
                    checkpoint, None, f"continuing {folder} from {checkpoint} with {describe(changed)}"
                )
    if not earlier:
        return ResumePlan(None, None, f"no earlier run beside {run_dir}: starting fresh")
    newest, changed = earlier[0]
    why = f"differs in {describe(changed)}" if changed else "has no complete checkpoint"
    return ResumePlan(None, None, f"the newest earlier run {newest} {why}: starting fresh", killed_run)


def recorded_episodes(
    run_dir: Path,
    phase: str,
    task_keys: Sequence[str],
    key: Callable[[EventLog], str] = lambda log: log.task_id,
) -> list[EventLog | None] | None:
    """The episodes that the run in ``run_dir`` recorded for ``phase`` (``eventlogs/<phase>.jsonl``), one entry
    per entry of ``task_keys`` and in its order (a task listed twice, as in repeated trials, takes two): the
    episode whose ``key`` it is (the benchmark's ``task_key``), or None for one the run did not finish (it was
    killed in the phase); None when the run never reached the phase."""
    path = run_dir / "eventlogs" / f"{phase}.jsonl"
    if not path.exists():
        return None
    by_task: dict[str, list[EventLog]] = defaultdict(list)
    for log in read_jsonl(path, strict=False).logs:  # a killed run's torn last line is no episode
        by_task[key(log)].append(log)
    return [by_task[task].pop(0) if by_task[task] else None for task in task_keys]
