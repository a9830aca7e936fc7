"""Write report.md, report.html and report.json for a multirun folder:
python scripts/report.py outputs/<task>/multiruns/<time>

Jobs differing only by seed (+sweep=seeds; and by resume, and the keys given to --seeds-vary) are grouped into one
row with an interval over seeds and tasks; a requested metric is looked up in each job's summary.json, then
metrics.jsonl, and named when no job has it.
With --wandb, also a W&B Report from the same rows (wandb-workspaces: pip install -e '.[reports]'): saved when
WANDB_MODE=online (its URL printed), else its spec written to <sweep>/wandb_report.json."""

import argparse
import logging
from pathlib import Path

from agenttune.tracking.report import collect, varying_metrics, write_report
from agenttune.tracking.wandb_report import WandbReportError, publish, workspaces


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "sweep_dir", help="a Hydra multirun folder (its numbered job folders hold summary.json)"
    )
    parser.add_argument(
        "--metrics",
        nargs="*",
        help="metrics to tabulate, from summary.json or metrics.jsonl (default: every numeric summary metric)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the bootstrap over seeds and tasks")
    parser.add_argument(
        "--seeds-vary",
        nargs="*",
        default=(),
        metavar="KEY",
        help="override keys set per seed whose jobs still group as seeds (init_from: a seed from its own student)",
    )
    parser.add_argument(
        "--wandb",
        action="store_true",
        help="also build a W&B Report (wandb-workspaces): saved online (WANDB_MODE=online), else its spec is "
        "written to <sweep>/wandb_report.json",
    )
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    try:
        if args.wandb:
            workspaces()  # a missing wandb-workspaces stops before anything is written
        collected = collect(args.sweep_dir, args.metrics)
        md_path, html_path = write_report(
            args.sweep_dir, seed=args.seed, collected=collected, seeds_vary=args.seeds_vary
        )
        print(f"wrote {md_path}, {html_path} and {md_path.with_suffix('.json')}")
        if args.wandb:
            rows, metrics, _ = collected
            print(publish(Path(args.sweep_dir), rows, varying_metrics(rows, metrics)))
    except (WandbReportError, FileNotFoundError) as error:
        raise SystemExit(f"error: {error}") from None


if __name__ == "__main__":
    main()
