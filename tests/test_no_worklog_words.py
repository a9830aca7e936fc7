"""No tracked text file speaks the project's work log: a result is dated, and names its commit only in a
"reproduce" line; numbered working sessions mean nothing to a reader."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from agenttune.config import repo_root

ROOT = Path(repo_root())
# built from parts so that this file does not match itself
WORD = "st" + "op"
SESSION = "ses" + "sion"
# what `grep -rniE "<word> [0-9]+|this <word>"` over `git ls-files` finds, plus "<word>-<n>" and "this <working session>"
PATTERN = re.compile(rf"{WORD}[ -][0-9]+|this {WORD}|this {SESSION}", re.IGNORECASE)


def tracked_text_files() -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    files = []
    for name in out.decode().split("\0"):
        path = ROOT / name
        if not name or not path.is_file():
            continue
        head = path.read_bytes()[:8192]
        if b"\0" not in head:  # text, not binary
            files.append(path)
    return files


def test_no_tracked_file_names_a_work_session():
    hits = []
    for path in tracked_text_files():
        text = path.read_text(errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            if PATTERN.search(line):
                hits.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:120]}")
    assert not hits, "work-log words in tracked files:\n" + "\n".join(hits)


def test_the_pattern_catches_what_it_should():
    assert PATTERN.search(f"measured at {WORD} 37, 2026-12-04")
    assert PATTERN.search(f"{WORD.title()} 18: extractive answers")
    assert PATTERN.search(f"as this {WORD} found")
    assert PATTERN.search(f"the {WORD}-15 job") and PATTERN.search(f"as this {SESSION} ended")
    assert not PATTERN.search(f"the {WORD} token; a {WORD}_sequence at step 3; {WORD}s at 3")


# a commit hash: 7-40 hex digits with at least one letter and one digit
COMMIT = re.compile(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}\b")


def test_pages_name_a_commit_only_to_reproduce():
    """A result is dated; the commit it ran at appears only in a 'reproduce' line, never as the date of a result."""
    pages = [
        ROOT / "README.md",
        ROOT / "CHANGELOG.md",
        *ROOT.glob("docs/guide/*.md"),
        *ROOT.glob("experiments/*/*.md"),
    ]
    hits = []
    for page in pages:
        if not page.is_file():
            continue
        for number, line in enumerate(page.read_text().splitlines(), 1):
            if COMMIT.search(line) and "reproduce" not in line.lower():
                hits.append(f"{page.relative_to(ROOT)}:{number}: {line.strip()[:120]}")
    assert not hits, "commit hashes outside a reproduce line:\n" + "\n".join(hits)
