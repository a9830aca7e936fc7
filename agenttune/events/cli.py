"""Command line: ``python -m agenttune.events {stats,validate,convert,quality,diff} ...``.

File formats go by extension: ``.jsonl`` (EventLogs, one a line), ``.parquet`` (one row per log) and
``.adp.json`` / ``.json`` (an ADP trajectory list). ``stats`` and ``validate`` exit 1 when a file holds anything
invalid (a torn last line included), naming file and line; ``validate --tokenizer NAME_OR_PATH`` also checks that
each full log's tool calls say what their token spans say (:func:`~agenttune.events.validation.check_call_text`);
A folder stands for every ``.jsonl``/``.parquet`` file under it: ``stats <run>/eventlogs`` prints each file's
counts and trajectory metrics (:mod:`agenttune.events.trajectory`), then the run's episodes by part (``train``
for on-policy training rollouts, ``eval_before``, ...);
``convert`` overwrites its output; ``quality`` prints the ADP quality report of each file and exits 1 with
``--strict`` when a check fails; ``diff FIRST SECOND`` pairs two runs' episodes of the same tasks and prints, for
each pair that differs, where it first does (:mod:`agenttune.events.diff`), then a summary, and exits 1 when any
pair differs or a task is in one file only. A path that cannot be read (missing, a folder where a file is needed,
not Parquet, nested too deeply, not ADP) is reported as one line naming it, never a traceback, and the command
exits 1.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from dataclasses import asdict
from pathlib import Path

from pydantic import ValidationError

from agenttune.events.diff import compare
from agenttune.events.io import EventLogFileError, read_jsonl, read_parquet, write_jsonl, write_parquet
from agenttune.events.schema import EventKind, EventLog, EventLogError
from agenttune.events.trajectory import summarize
from agenttune.events.validation import check_call_text


def read_logs(path: str) -> tuple[list[EventLog], list[str]]:
    """Logs in ``path`` and the problems found (``file:line: message``), whatever the format; a file that cannot
    be read at all (missing, a folder, not Parquet, nested too deeply, not ADP) is one problem naming it."""
    try:
        if path.endswith(".jsonl"):
            contents = read_jsonl(path, strict=False)
            return contents.logs, [str(issue) for issue in contents.issues]
        if path.endswith(".parquet"):
            return read_parquet(path), []
        if path.endswith(".json"):
            from agenttune.events.adp import import_adp

            return import_adp(path), []
    except (*READ_ERRORS, EventLogError) as error:
        return [], [unreadable(path, error)]
    raise SystemExit(f"{path}: unknown format; use .jsonl, .parquet or .adp.json")


# What reading a file the user named can raise, each turned into one line by :func:`unreadable`.
READ_ERRORS = (OSError, RecursionError, ValidationError, ValueError)  # ValueError: pyarrow's ArrowInvalid


def unreadable(path: str, error: Exception) -> str:
    """One line naming ``path`` and why it could not be read."""
    if isinstance(error, FileNotFoundError):
        return f"{path}: no such file"
    if isinstance(error, IsADirectoryError):
        return f"{path}: is a folder, not a file"
    if isinstance(error, OSError):
        return f"{path}: cannot be read ({error.strerror or error})"
    if isinstance(error, RecursionError):
        return f"{path}: nests too deeply to read"
    if isinstance(error, ValidationError):  # an ADP file that does not follow the ADP models (pydantic)
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "the file"
        return f"{path}: not an ADP trajectory list: {where}: {first['msg']}"
    if isinstance(error, EventLogFileError):
        return str(error).splitlines()[0]
    if type(error).__module__.startswith("pyarrow"):
        return f"{path}: not a Parquet file of EventLogs ({str(error).splitlines()[0]})"
    return f"{path}: {str(error).splitlines()[0] if str(error) else type(error).__name__}"


def write_logs(logs: list[EventLog], path: str) -> None:
    """Write ``logs`` to ``path`` in the format its extension names (overwriting)."""
    target = Path(path)
    if path.endswith(".jsonl"):
        target.unlink(missing_ok=True)
        write_jsonl(logs, target)
    elif path.endswith(".parquet"):
        write_parquet(logs, target)
    elif path.endswith(".json"):
        from agenttune.events.adp import export_adp

        export_adp(logs, target)
    else:
        raise SystemExit(f"{path}: unknown format; use .jsonl, .parquet or .adp.json")


def stats(logs: list[EventLog]) -> dict[str, dict]:
    """Counts of logs by tier, events by kind, and tool calls by tool name; the trajectory metrics
    (:mod:`agenttune.events.trajectory`: tool-argument accuracy, redundant calls, loops, recovery after errors)."""
    tiers, kinds, tools = Counter(), Counter(), Counter()
    for log in logs:
        tiers[log.tier] += 1
        for event in log.events:
            kinds[event.payload.kind.value] += 1
            if event.payload.kind == EventKind.TOOL_CALL:
                tools[event.payload.name] += 1
    return {
        "tier": dict(tiers),
        "kind": dict(kinds),
        "tool": dict(tools.most_common()),
        "trajectory": summarize(logs),
    }


def expand(paths: list[str]) -> list[str]:
    """Each path, a folder replaced by the ``.jsonl`` and ``.parquet`` files under it (a run's ``eventlogs/``)."""
    files = []
    for path in paths:
        folder = Path(path)
        if folder.is_dir():
            files += sorted(str(f) for f in folder.rglob("*") if f.suffix in (".jsonl", ".parquet"))
        else:
            files.append(path)
    return files


def episodes_by_part(folder: str, counts: dict[str, int]) -> dict[str, int]:
    """Episodes of a run's ``eventlogs/`` folder by part: ``train`` (the ``train/step-<N>.jsonl`` files of on-policy
    training) and each other file by name (``eval_before``, ``eval_after``, ``teacher``, ...)."""
    parts: Counter = Counter()
    for path, count in counts.items():
        relative = Path(path).relative_to(folder)
        parts[relative.parts[0] if len(relative.parts) > 1 else relative.stem] += count
    return dict(sorted(parts.items()))


def _call_text_problems(path: str, logs: list[EventLog], tokenizer) -> list[str]:
    """``file: log <id>: message`` for each log whose tool calls disagree with their token spans."""
    problems = []
    for log in logs:
        try:
            check_call_text(log, tokenizer)
        except EventLogError as error:
            problems.append(f"{path}: log {log.id!r}: {error}")
    return problems


def _report_problems(problems: list[str]) -> None:
    for problem in problems:
        print(problem, file=sys.stderr)


def _diff(first: str, second: str) -> int:
    """Print each diverging pair of episodes as a JSON line, then the summary; 1 when the runs differ."""
    (logs_a, problems_a), (logs_b, problems_b) = read_logs(first), read_logs(second)
    if problems_a or problems_b:
        _report_problems(problems_a + problems_b)
        return 1
    comparison = compare(logs_a, logs_b)
    for divergence in comparison.diverging:
        print(json.dumps(asdict(divergence), ensure_ascii=False))
    summary = comparison.summary()
    print(json.dumps({"first": first, "second": second, **summary}))
    return int(bool(summary["differ"] or summary["only_first"] or summary["only_second"]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m agenttune.events", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    for name, text in (
        ("stats", "counts by kind, tier and tool; trajectory metrics"),
        ("validate", "check files against the schema"),
    ):
        command = commands.add_parser(name, help=text)
        command.add_argument(
            "files", nargs="+", help="files, or folders (every .jsonl/.parquet file under them)"
        )
        if name == "validate":
            command.add_argument(
                "--tokenizer",
                help="the logs' tokenizer (hub id or folder): check tool calls against their tokens",
            )
    convert = commands.add_parser("convert", help="convert between .jsonl, .parquet and .adp.json")
    convert.add_argument("source")
    convert.add_argument("target")
    quality = commands.add_parser("quality", help="ADP quality report per file")
    quality.add_argument("files", nargs="+")
    quality.add_argument("--min-thought-share", type=float, default=0.8)
    quality.add_argument("--strict", action="store_true", help="exit 1 when a file fails a check")
    diff = commands.add_parser("diff", help="where two runs' episodes of the same tasks first differ")
    diff.add_argument("first")
    diff.add_argument("second")
    args = parser.parse_args(argv)

    if args.command == "diff":
        return _diff(args.first, args.second)
    if args.command == "convert":
        logs, problems = read_logs(args.source)
        if problems:
            _report_problems(problems)
            return 1
        try:
            write_logs(logs, args.target)
        except OSError as error:
            _report_problems([f"{args.target}: cannot be written ({error.strerror or error})"])
            return 1
        print(f"{args.source} -> {args.target}: {len(logs)} logs")
        return 0
    if args.command == "quality":
        from agenttune.events.adp_quality import check_file

        failed = unreadable_files = False
        for path in args.files:
            try:
                report = check_file(path, args.min_thought_share)
            except READ_ERRORS as error:
                _report_problems([unreadable(path, error)])
                unreadable_files = True
                continue
            failed |= not report.ok
            print(json.dumps(report.as_dict(), ensure_ascii=False))
        return int(unreadable_files or (failed and args.strict))
    tokenizer = None
    if getattr(args, "tokenizer", None):
        from transformers import AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(args.tokenizer)
    empty = [path for path in args.files if Path(path).is_dir() and not expand([path])]
    _report_problems([f"{path}: a folder with no .jsonl or .parquet file under it" for path in empty])
    status = int(bool(empty))
    counts: dict[str, int] = {}
    for path in expand(args.files):
        logs, problems = read_logs(path)
        counts[path] = len(logs)
        if tokenizer is not None:
            problems += _call_text_problems(path, logs, tokenizer)
        _report_problems(problems)
        status |= bool(problems)
        if args.command == "stats":
            print(json.dumps({"file": path, "logs": len(logs), **stats(logs)}, ensure_ascii=False))
        else:
            verdict = "invalid" if problems else "ok"
            print(f"{path}: {verdict} ({len(logs)} valid logs, {len(problems)} problems)")
    if args.command == "stats":
        for folder in (path for path in args.files if Path(path).is_dir()):
            inside = {f: n for f, n in counts.items() if Path(folder) in Path(f).parents}
            print(json.dumps({"folder": folder, "episodes": episodes_by_part(folder, inside)}))
    return status
