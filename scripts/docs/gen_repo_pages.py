"""Put the repository's own pages into the documentation (run by the mkdocs-gen-files plugin at build time).

``README.md`` becomes ``readme.md`` (``docs/index.md`` is the home page), each ``experiments/<name>/README.md``
becomes ``experiments/<name>.md``, and ``CHANGELOG.md`` keeps its name. Every other repository file a copied page links to (a result's
JSON, a plot, a script) is copied to the same path, and a Markdown file it links to is copied as a page in turn, so
the pages' relative links resolve in the site as they do on the repository; a link into ``docs/`` is pointed at
that page of the site. A link to something that is not there, or that git ignores (a fresh clone lacks it), is left
as it is, and ``mkdocs build --strict`` fails on it, naming the page.
"""

from __future__ import annotations

import posixpath
import re
import subprocess
from pathlib import Path

import mkdocs_gen_files

ROOT = Path(mkdocs_gen_files.config["config_file_path"]).parent
EXPERIMENTS = sorted(path.relative_to(ROOT).as_posix() for path in ROOT.glob("experiments/*/README.md"))
PAGES = ["README.md", "CHANGELOG.md", *EXPERIMENTS]
# [text](target "title"), ![alt](target), [label]: target, and the src/href of inline HTML
LINK = re.compile(r"(\]\(\s*<?|^\s*\[[^\]]+\]:\s*<?|\b(?:src|href)=[\"'])([^)\s>\"']+)", re.MULTILINE)
EXTERNAL = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|#|/)", re.IGNORECASE)


def site_path(path: str) -> str:
    """Where a repository file lives in the documentation tree: a folder's README.md is the page named after the
    folder (``experiments/cuad_search.md``; the top one is ``readme.md``), a page under ``docs/`` is where the site
    has it, anything else keeps its path."""
    if path == "README.md":
        return "readme.md"
    if path.endswith("/README.md"):
        return path.removesuffix("/README.md") + ".md"
    return path.removeprefix("docs/")


def ignored(path: str) -> bool:
    """Whether git ignores ``path`` (a run's outputs, a cache): a fresh clone lacks it, so a page must not link it."""
    check = subprocess.run(["git", "check-ignore", "-q", path], cwd=ROOT, stderr=subprocess.DEVNULL)
    return check.returncode == 0  # 1: not ignored; 128: no git repository here, so nothing is ignored


def rewrite(page: str, text: str, pending: list[str], copied: set[str]) -> str:
    """``text`` with each relative link pointed at its target's place in the site; targets queued or copied."""

    def one(match: re.Match) -> str:
        link = match.group(2)
        if EXTERNAL.match(link):
            return match.group(0)
        path, _, anchor = link.partition("#")
        target = posixpath.normpath(posixpath.join(posixpath.dirname(page), path))
        if (ROOT / target).is_dir() and (ROOT / target / "README.md").is_file():
            target = posixpath.join(target, "README.md")
        if not (ROOT / target).is_file() or target.startswith("../") or ignored(target):
            return match.group(0)  # --strict reports it
        if not target.startswith("docs/") and target not in copied:
            copied.add(target)
            if target.endswith(".md"):
                pending.append(target)
            else:
                with mkdocs_gen_files.open(target, "wb") as out:
                    out.write((ROOT / target).read_bytes())
        new = posixpath.relpath(site_path(target), posixpath.dirname(site_path(page)) or ".")
        return match.group(1) + new + (f"#{anchor}" if anchor else "")

    return LINK.sub(one, text)


def main() -> None:
    pending = [page for page in PAGES if (ROOT / page).is_file()]
    copied = set(pending)
    while pending:
        page = pending.pop(0)
        text = rewrite(page, (ROOT / page).read_text(), pending, copied)
        with mkdocs_gen_files.open(site_path(page), "w") as out:
            out.write(text)


main()
