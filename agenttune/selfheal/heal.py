"""One healing round: failures -> corrections -> retraining (only when the triggers hold) -> gate -> deployment.

1. Triggers: at least ``self_heal.min_failures`` failures whose tasks the benchmark knows, and a held-out set (the
   benchmark's first ``self_heal.heldout`` eval tasks) of at least ``gate.min_heldout`` cases that does not overlap
   the failed tasks and whose gold the oracle confirms (:mod:`agenttune.selfheal.gate`); otherwise nothing trains.
2. Corrections: the benchmark's scripted agent ``self_heal.correction`` (its teacher, or oracle) replays each
   failed task; replays that fail themselves or that the benchmark's ``check`` rejects are dropped
   (``eventlogs/heal-<round>/corrections.jsonl``). A preference algorithm also gets divergence-point pairs cut
   where each failure left its correction (:func:`agenttune.selfevolve.divergence.build_dpo_pairs`).
3. The current policy (the deployed one, else ``init_from`` / ``model``) plays the held-out set, is retrained with
   the ``algorithm`` group on the corrections, and the candidate plays the same set; the gate compares them.
4. A candidate the gate passes is deployed with a backup (:class:`~agenttune.selfheal.deployment.Deployment`), or,
   with ``gate.require_approval``, left for a person in ``approvals/pending-<round>.json``. The deployed policy's
   expected success is kept: episodes observed afterwards that fall below it roll the deployment back.
"""

from __future__ import annotations

import json
import logging
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from omegaconf import DictConfig

from agenttune.agents.episode import task_id
from agenttune.events.io import write_jsonl
from agenttune.events.schema import Event, EventLog, RewardPayload, replace
from agenttune.selfheal.deployment import Deployment
from agenttune.selfheal.detect import Failure, failure_reasons
from agenttune.selfheal.gate import decide, heldout_problems, policy_numbers
from agenttune.stages.phases import scored_episodes

log = logging.getLogger(__name__)


class Healer:
    """Heals one policy across rounds (a daemon runs many); holds the deployment and what it expects of it."""

    def __init__(self, cfg: DictConfig, run, benchmark) -> None:
        self.cfg, self.run, self.benchmark = cfg, run, benchmark
        self.settings = cfg.self_heal
        self.deployment = Deployment(Path(run.dir) / "deployment")
        self.expected_success: float | None = None
        self.rounds = 0

    # ---- the current policy ------------------------------------------------------------------------------
    def current_policy_path(self) -> str | None:
        return str(self.deployment.current) if self.deployment.current.exists() else None

    def load_policy(self):
        from agenttune.stages.policy import load_policy

        return load_policy(self.cfg, self.current_policy_path())

    def engine(self, model, tokenizer):
        from agenttune.stages.phases import policy_engine

        return policy_engine(self.cfg, model, tokenizer)

    # ---- observing ---------------------------------------------------------------------------------------
    def success(self, logs: Sequence[EventLog]) -> float:
        s = self.settings
        return sum(not failure_reasons(log, s.reward, s.reward_threshold) for log in logs) / len(logs)

    def observe(self, logs: Sequence[EventLog]) -> dict[str, Any]:
        """Episodes of the deployed policy seen after a deployment: roll back when they fall below the gate's."""
        if self.expected_success is None or not logs:
            return {}
        observed = self.success(logs)
        rolled = self.deployment.check_after_deployment(
            self.expected_success, observed, self.settings.gate.rollback_tolerance
        )
        if rolled:
            self.expected_success = None
        return {"self_heal/observed_success": observed, "self_heal/rolled_back": rolled}

    # ---- one round ---------------------------------------------------------------------------------------
    def heal(self, failures: Sequence[Failure]) -> dict[str, Any]:
        self.rounds += 1
        s, name = self.settings, f"heal-{self.rounds}"
        summary: dict[str, Any] = {"self_heal/round": self.rounds, "self_heal/failures": len(failures)}
        summary |= {
            f"self_heal/reason/{r}": n for r, n in Counter(r for f in failures for r in f.reasons).items()
        }
        summary |= {
            f"self_heal/category/{c}": n
            for c, n in Counter(c for f in failures for c in f.categories).items()
        }
        known = {
            task_id(t, i): t
            for split in self.benchmark.splits
            for i, t in enumerate(self.benchmark.tasks(split))
        }
        failed = {f.task_id: known[f.task_id] for f in failures if f.task_id in known}
        if len(failed) < s.min_failures:
            return summary | {
                "self_heal/outcome": f"not triggered: {len(failed)} failed tasks, {s.min_failures} needed"
            }
        heldout = list(self.benchmark.tasks("eval", s.heldout))
        heldout_ids = [task_id(t, i) for i, t in enumerate(heldout)]
        folder = Path(self.run.eventlog_dir) / name
        oracle = self._scripted("oracle")
        oracle_logs, _ = scored_episodes(
            self.cfg, self.benchmark, oracle, heldout, path=folder / "heldout_oracle.jsonl"
        )
        oracle_failed = [
            log.task_id for log in oracle_logs if failure_reasons(log, s.reward, s.reward_threshold)
        ]
        if s.gate.contradicted == "drop":
            kept = [(i, t) for i, t in zip(heldout_ids, heldout, strict=True) if i not in oracle_failed]
            heldout_ids, heldout = [i for i, _ in kept], [t for _, t in kept]
            summary["gate/dropped_contradicted"], oracle_failed = len(oracle_failed), []
        elif s.gate.contradicted != "refuse":
            raise ValueError(f"self_heal.gate.contradicted={s.gate.contradicted!r}; choose refuse or drop")
        problems = heldout_problems(heldout_ids, failed, oracle_failed, s.gate)
        summary["gate/heldout"] = len(heldout_ids)
        if problems:
            return summary | {"self_heal/outcome": "refused", "gate/reasons": problems}

        corrections = self.corrections(list(failed.values()), name)
        summary["self_heal/corrections"] = len(corrections)
        if not corrections:
            return summary | {"self_heal/outcome": "no correction passed its checks"}
        model, tokenizer = self.load_policy()
        current_logs, _ = scored_episodes(
            self.cfg,
            self.benchmark,
            self.engine(model, tokenizer),
            heldout,
            path=folder / "heldout_current.jsonl",
        )
        candidate_path, pairs = self.retrain(model, tokenizer, corrections, [f.log for f in failures], name)
        summary["self_heal/divergence_pairs"] = pairs
        candidate_logs, _ = scored_episodes(
            self.cfg,
            self.benchmark,
            self.engine(model, tokenizer),
            heldout,
            path=folder / "heldout_candidate.jsonl",
        )
        verdict = decide(
            policy_numbers(current_logs, s.reward, s.reward_threshold),
            policy_numbers(candidate_logs, s.reward, s.reward_threshold),
            s.gate,
            [],
        )
        summary |= verdict.numbers
        if not verdict.deploy:
            return summary | {"self_heal/outcome": "kept current policy", "gate/reasons": verdict.reasons}
        if s.gate.require_approval:
            pending = Path(self.run.dir) / "approvals" / f"pending-{self.rounds}.json"
            pending.parent.mkdir(parents=True, exist_ok=True)
            pending.write_text(json.dumps({"candidate": str(candidate_path), **verdict.numbers}, indent=2))
            return summary | {"self_heal/outcome": "pending approval", "self_heal/pending": str(pending)}
        self.deployment.deploy(candidate_path, verdict.numbers)
        self.expected_success = verdict.numbers["gate/candidate/success"]
        return summary | {"self_heal/outcome": "deployed", "self_heal/deployed": str(self.deployment.current)}

    def _scripted(self, kind: str):
        return lambda task: self.benchmark.teacher(task, None, kind)

    def corrections(self, tasks: list[Any], name: str) -> list[EventLog]:
        """The correcting agent's replays of ``tasks`` (all in ``replays.jsonl``, each as it ends) that succeed and
        pass the benchmark's check (``corrections.jsonl``)."""
        s = self.settings
        folder = Path(self.run.eventlog_dir) / name
        agent = self._scripted(s.correction)
        logs, _ = scored_episodes(self.cfg, self.benchmark, agent, tasks, path=folder / "replays.jsonl")
        by_id = {task_id(t, i): t for i, t in enumerate(tasks)}
        kept = [
            log
            for log in logs
            if not failure_reasons(log, s.reward, s.reward_threshold)
            and not self.benchmark.check(log, by_id[log.task_id])
        ]
        write_jsonl(kept, folder / "corrections.jsonl")
        return kept

    def retrain(self, model, tokenizer, corrections, failed_logs, name: str) -> tuple[Path, int]:
        """Train ``model`` with the ``algorithm`` group on the corrections, or, for a preference algorithm, on the
        divergence-point pairs when there are any; the trained policy's folder and the number of pairs."""
        from datasets import Dataset

        from agenttune.selfevolve.divergence import build_dpo_pairs
        from agenttune.stages.policy import train_policy
        from agenttune.training import TrainingData, algorithm_config, algorithm_info
        from agenttune.training.log_datasets import training_data

        algorithm = algorithm_config(self.cfg.algorithm)
        data, rows = training_data(algorithm, corrections, tokenizer), []
        if algorithm_info(algorithm.name).data == "preferences" and self.settings.divergence_pairs:
            pairs = build_dpo_pairs([*map(_harness_scored, failed_logs), *map(_harness_scored, corrections)])
            rows = [
                {k: row[k] for k in ("prompt", "chosen", "rejected")}
                for row in pairs.train + pairs.validation
            ]
            if rows:
                data = TrainingData(preferences=Dataset.from_list(rows))
        model.train()
        return train_policy(self.cfg, self.run, model, tokenizer, data, prefix=name, stage=algorithm), len(
            rows
        )


def _harness_scored(log: EventLog) -> EventLog:
    """The log with its ``total`` as the ``harness`` reward the divergence pairs read (when it has none)."""
    if "harness" in log.rewards():
        return log
    total = log.rewards().get("total", 0.0)
    step = log.events[-1].step if log.events else 0
    event = Event(
        payload=RewardPayload(scope="episode", name="harness", value=total), actor="judge", step=step
    )
    return replace(log, events=[*log.events, event])
