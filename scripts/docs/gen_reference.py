"""Write the reference pages (run by the mkdocs-gen-files plugin at build time, so they cannot go stale).

``reference/config.md`` comes from ``conf/`` and the typed config schemas (:mod:`agenttune.config_reference`);
``reference/api/`` has one page per public module of ``agenttune``, rendered by mkdocstrings from its docstrings,
and the ``SUMMARY.md`` that lays them out in the navigation as the package tree.
"""

from __future__ import annotations

from pathlib import Path

import mkdocs_gen_files

from agenttune.config_reference import config_reference

PACKAGE = Path("agenttune")


def public_modules() -> list[tuple[str, ...]]:
    """Dotted-name parts of every module and package under ``agenttune/`` whose name has no leading underscore."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if not any(part.startswith("_") for part in parts):
            found.append(parts)
    return found


def main() -> None:
    with mkdocs_gen_files.open("reference/config.md", "w") as out:
        out.write(config_reference())
    nav = mkdocs_gen_files.Nav()
    for parts in public_modules():
        is_package = (Path(*parts) / "__init__.py").is_file()
        page = Path(*parts, "index.md") if is_package else Path(*parts).with_suffix(".md")
        nav[parts] = page.as_posix()
        with mkdocs_gen_files.open(Path("reference/api", page), "w") as out:
            out.write(f"::: {'.'.join(parts)}\n")
    with mkdocs_gen_files.open("reference/api/SUMMARY.md", "w") as out:
        out.writelines(nav.build_literate_nav())


main()
