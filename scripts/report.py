"""Write report.md and report.html for a multirun folder: python scripts/report.py outputs/<task>/multiruns/<time>"""

import argparse

from agenttune.tracking.report import write_report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "sweep_dir", help="a Hydra multirun folder (its numbered job folders hold summary.json)"
    )
    parser.add_argument("--metrics", nargs="*", help="metrics to tabulate (default: every numeric one)")
    args = parser.parse_args()
    md_path, html_path = write_report(args.sweep_dir, args.metrics)
    print(f"wrote {md_path} and {html_path}")


if __name__ == "__main__":
    main()
