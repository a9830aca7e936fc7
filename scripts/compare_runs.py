"""Compare two runs task by task: python scripts/compare_runs.py RUN_A RUN_B [--phase eval_after] [--out FILE]

For every metric both runs' evaluation phase scored per task (task_scores.json), the means of A and B over the tasks
both evaluated and B minus A with its paired 95% bootstrap interval (agenttune.tracking.compare). Prints a table;
--out also writes it as JSON. --phase-b compares another phase of run B (e.g. eval_warm of a cuad_grpo run)."""

import argparse
import json
from pathlib import Path

from agenttune.tracking.compare import compare_runs


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("run_a", help="a run folder (holds task_scores.json)")
    parser.add_argument("run_b", help="the run to compare with run_a, on the tasks both evaluated")
    parser.add_argument("--phase", default="eval_after", help="run A's evaluation phase (default eval_after)")
    parser.add_argument("--phase-b", help="run B's evaluation phase (default: --phase)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the bootstrap")
    parser.add_argument("--out", type=Path, help="also write the comparison to this JSON file")
    args = parser.parse_args()
    phase_b = args.phase_b or args.phase
    try:
        rows = compare_runs(args.run_a, args.run_b, args.phase, phase_b, args.seed)
    except (FileNotFoundError, ValueError) as error:
        raise SystemExit(f"error: {error}") from None
    print(f"A: {args.run_a} ({args.phase})\nB: {args.run_b} ({phase_b})")
    print("| metric | A | B | B - A [95% interval] | tasks |\n| --- | --- | --- | --- | --- |")
    for metric, row in rows.items():
        print(
            f"| {metric} | {row['a']:.3f} | {row['b']:.3f} | "
            f"{row['b_minus_a']:+.3f} [{row['ci_low']:.3f}, {row['ci_high']:.3f}] | {row['n']} |"
        )
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        record = {"run_a": args.run_a, "phase_a": args.phase, "run_b": args.run_b, "phase_b": phase_b}
        args.out.write_text(json.dumps(record | {"metrics": rows}, indent=2) + "\n")
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
