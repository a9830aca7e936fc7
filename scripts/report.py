"""Write report.md and report.html for a multirun folder: python scripts/report.py outputs/<task>/multiruns/<time>

Jobs differing only by seed (+sweep=seeds) are grouped into one row with an interval over seeds and tasks; a
requested metric is looked up in each job's summary.json, then metrics.jsonl, and named when no job has it."""

import argparse
import logging

from agenttune.tracking.report import write_report


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
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    md_path, html_path = write_report(args.sweep_dir, args.metrics, args.seed)
    print(f"wrote {md_path} and {html_path}")


if __name__ == "__main__":
    main()
