"""Every number the README's results table and the experiment pages link to equals the committed JSON it links to.

A value that comes from a file is written as a link to it, the fragment naming the value's place in the JSON, keys
joined by ':' (a key may hold '/', as metric names do):

    [+0.044 [0.022, 0.067]](experiments/cuad_search/results/.../deltas.json#over_seeds:seed=0,1,2:delta_rl/reward)

The place may be a number (its interval, when its JSON has one, is ``<key>/ci_low`` and ``<key>/ci_high`` beside
it, as in ``summary.json``'s metrics), a ``{"value", "ci_low", "ci_high", "n"}`` record (``scripts/grpo_study.py
deltas``) or a ``{"b_minus_a", "ci_low", "ci_high", "n"}`` record (``scripts/compare_runs.py --out``). A written
number must equal its source rounded to the digits written. The README's results table holds one such value per
row, with its interval, its n and a source column naming the same file."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from agenttune.config import repo_root

ROOT = Path(repo_root())
README = ROOT / "README.md"
PAGES = [README, *sorted(ROOT.glob("experiments/*/*.md"))]
NUMBER = r"[+-]?\d+(?:\.\d+)?"
# [text](target.json#fragment); the text may hold one level of brackets (the interval)
VALUE_LINK = re.compile(r"\[((?:[^\[\]]|\[[^\[\]]*\])+)\]\(([^)\s#]+\.json)#([^)\s]+)\)")
VALUE = re.compile(rf"^({NUMBER})(?:\s*\[({NUMBER}),\s*({NUMBER})\])?$")


def decimals(text: str) -> int:
    return len(text.split(".")[1]) if "." in text else 0


def agrees(written: str, source: float | None) -> bool:
    """``written`` is ``source`` rounded to the digits written."""
    if source is None or not math.isfinite(source):
        return False
    return abs(float(written) - source) <= 0.5 * 10 ** -decimals(written) + 1e-9


def resolve(path: Path, fragment: str) -> dict:
    """The value at ``fragment`` in the JSON file: value, ci_low, ci_high, n and seeds where the file has them."""
    node = json.loads(path.read_text())
    parent, key = None, None
    for key in fragment.split(":"):
        assert isinstance(node, dict) and key in node, (
            f"{path.relative_to(ROOT)} has no {fragment!r} (at {key!r})"
        )
        parent, node = node, node[key]
    if isinstance(node, dict):
        value = node.get("value", node.get("b_minus_a"))
        return {"value": value, **{k: node.get(k) for k in ("ci_low", "ci_high", "n", "seeds")}}
    found = {"value": node}
    for name in ("ci_low", "ci_high", "n", "seeds"):
        found[name] = parent.get(f"{key}/{name}")
    return found


def value_links(page: Path) -> list[tuple[int, str, Path, str]]:
    """(line, text, JSON file, fragment) of every value link on the page."""
    found = []
    for number, line in enumerate(page.read_text().splitlines(), 1):
        for match in VALUE_LINK.finditer(line):
            text, target, fragment = match.groups()
            found.append((number, text.replace("*", "").strip(), (page.parent / target).resolve(), fragment))
    return found


def check(page: Path, line: int, text: str, path: Path, fragment: str) -> dict:
    where = f"{page.relative_to(ROOT)}:{line}: {text!r}"
    assert path.is_file(), f"{where} links to a missing file {path}"
    written = VALUE.match(text)
    assert written, f"{where} is not 'value' or 'value [low, high]'"
    source = resolve(path, fragment)
    value, low, high = written.groups()
    assert agrees(value, source["value"]), f"{where}: the source says {source['value']}"
    if low is not None:
        assert agrees(low, source["ci_low"]) and agrees(high, source["ci_high"]), (
            f"{where}: the source's interval is [{source['ci_low']}, {source['ci_high']}]"
        )
    return source


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_linked_value_equals_its_source(page):
    links = value_links(page)
    assert links, f"{page.relative_to(ROOT)} links no value to its source"
    for line, text, path, fragment in links:
        check(page, line, text, path, fragment)


def results_table() -> tuple[list[str], list[list[str]]]:
    """The header and rows of the README's results table (the first table under '## Results')."""
    section = README.read_text().split("\n## Results\n", 1)[1].split("\n## ", 1)[0]
    table = section[section.index("\n|") :].split("\n\n", 1)[0]
    lines = [line for line in table.splitlines() if line.startswith("|")]
    split = [[cell.strip() for cell in line.strip("|").split(" | ")] for line in lines]
    return split[0], [row for row in split[2:]]


def seconds(text: str) -> float | None:
    """'28 s', '17.2 min', '1 h 45 min' in seconds; None for anything else."""
    if m := re.fullmatch(r"(\d+(?:\.\d+)?) s", text):
        return float(m[1])
    if m := re.fullmatch(r"(\d+(?:\.\d+)?) min", text):
        return float(m[1]) * 60
    if m := re.fullmatch(r"(\d+) h (\d+) min", text):
        return int(m[1]) * 3600 + int(m[2]) * 60
    return None


def test_the_readme_results_table_holds_one_sourced_value_per_cell():
    header, rows = results_table()
    assert header[:7] == ["experiment", "metric", "value [95% CI]", "n", "hardware", "time", "command"]
    assert header[7] == "source" and len(rows) >= 5
    column = {name: i for i, name in enumerate(header)}
    for row in rows:
        assert len(row) == len(header), f"a row of {len(row)} cells: {row}"
        links = VALUE_LINK.findall(row[column["value [95% CI]"]])
        assert len(links) == 1, f"the value cell must be one linked value: {row}"
        text, target, fragment = links[0]
        text = text.replace("*", "").strip()
        assert VALUE.match(text) and VALUE.match(text)[2] is not None, f"one value and its interval: {text!r}"
        path = (ROOT / target).resolve()
        source = check(README, 0, text, path, fragment)
        # n: the tasks; "x 3 seeds" when the source pools seeds
        n = re.match(r"(\d+)(?: x (\d+) seeds)?$", row[column["n"]])
        assert n, f"n is a count of tasks (optionally 'x N seeds'): {row[column['n']]!r}"
        assert source["n"] == int(n[1]), f"n {n[1]} against the source's {source['n']}: {row}"
        if n[2] is not None:
            assert source["seeds"] == int(n[2]), f"seeds {n[2]} against the source's {source['seeds']}"
        # the source column names the same file
        named = re.findall(r"\]\(([^)#\s]+)\)", row[column["source"]])
        assert [(ROOT / p).resolve() for p in named] == [path], f"the source column must link {target}: {row}"
        # a run summary's wall time, where the cell gives one
        summary = json.loads(path.read_text()) if path.name == "summary.json" else {}
        taken = seconds(row[column["time"]])
        if "wall_time_s" in summary and taken is not None:
            unit = 1 if row[column["time"]].endswith(" s") else 60
            written = (
                row[column["time"]].split()[0] if unit == 1 or " h " not in row[column["time"]] else None
            )
            if written is not None:
                assert agrees(written, summary["wall_time_s"] / unit), (
                    f"time {row[column['time']]!r} against wall_time_s {summary['wall_time_s']}"
                )
            else:
                assert abs(taken - summary["wall_time_s"]) < 60, f"time {row[column['time']]!r}"


def test_agreement_is_rounding_to_the_digits_written():
    assert agrees("+0.044", 0.044459771765941625) and agrees("0.52", 0.52) and agrees("28", 28.18)
    assert not agrees("0.045", 0.044459771765941625) and not agrees("0.5", 0.56)
