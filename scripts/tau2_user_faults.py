"""How often a tau2 episode's failure is its simulated user's: count the ``user_fault`` flags of evaluation runs.

    .venv/bin/python train.py +experiment=tau2_oracle benchmark=tau2_telecom harness.user=llm benchmark.num_eval=4 \\
        harness.user_model.max_new_tokens=32 hydra.run.dir=outputs/tau2_user_faults/telecom_llm
    .venv/bin/python scripts/tau2_user_faults.py outputs/tau2_user_faults/*

Each argument is a run folder (``.hydra/`` and ``eventlogs/eval.jsonl``). Per run: episodes, failures
(reward below 1), flagged failures (``user_fault`` set, :mod:`agenttune.benchmarks.tau2.user_faults`), the flagged
share of failures with its 95% Wilson interval, and the count per reason. With the oracle agent every failure is
the user's, so that share checks the detector; a scripted user is never flagged. Writes the JSON to ``--out`` and
prints a table.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any

from omegaconf import OmegaConf
from scipy.stats import binomtest

from agenttune.benchmarks.tau2.user_faults import REASONS
from agenttune.events.io import load_jsonl

OUT = Path("experiments/tau2_self_evolution/results/user_faults.json")


def run_counts(run_dir: Path) -> dict[str, Any]:
    """The flag counts of one evaluation run and the settings that name it."""
    cfg = OmegaConf.load(run_dir / ".hydra" / "config.yaml")
    logs = load_jsonl(run_dir / "eventlogs" / "eval.jsonl")
    failures = [log for log in logs if float(log.metadata["reward"]) < 1.0]
    reasons = Counter(log.metadata["user_fault"] for log in failures if log.metadata["user_fault"])
    flagged = sum(reasons.values())
    overrides = OmegaConf.to_container(OmegaConf.load(run_dir / ".hydra" / "overrides.yaml"))
    counts: dict[str, Any] = {
        "run": run_dir.name,
        "command": " ".join(["python train.py", *(o for o in overrides if not o.startswith("hydra."))]),
        "domains": list(cfg.benchmark.domains) or [cfg.benchmark.domain],
        "agent": cfg.harness.agent,
        "user": cfg.harness.user,
        "episodes": len(logs),
        "failures": len(failures),
        "flagged": flagged,
        "flagged_per_failure": flagged / len(failures) if failures else None,
        "reasons": {reason: reasons.get(reason, 0) for reason in REASONS},
        "terminations": dict(Counter(log.metadata["termination_reason"] for log in logs)),
    }
    if failures:
        interval = binomtest(flagged, len(failures)).proportion_ci(method="wilson")
        counts["flagged_per_failure_ci"] = [round(float(interval.low), 3), round(float(interval.high), 3)]
    if cfg.harness.user == "llm":
        counts["user_model"] = {
            "model": cfg.model.name,
            "max_new_tokens": cfg.harness.user_model.max_new_tokens,
            "temperature": cfg.harness.user_model.temperature,
        }
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path, help="run folders of tau2 evaluations")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    runs = [run_counts(run_dir) for run_dir in args.runs]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"runs": runs}, indent=2) + "\n")
    print(f"{'run':<28} {'user':<9} {'episodes':>8} {'failures':>8} {'flagged':>7}  share [95% CI]  reasons")
    for run in runs:
        share = run["flagged_per_failure"]
        shown = "-" if share is None else f"{share:.2f} {run['flagged_per_failure_ci']}"
        reasons = ", ".join(f"{name} {n}" for name, n in run["reasons"].items() if n)
        print(
            f"{run['run']:<28} {run['user']:<9} {run['episodes']:>8} {run['failures']:>8} {run['flagged']:>7}  "
            f"{shown:<14} {reasons}"
        )
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
