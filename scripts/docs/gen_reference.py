"""Write the reference pages (run by the mkdocs-gen-files plugin at build time, so they cannot go stale).

``reference/config.md`` comes from ``conf/`` and the typed config schemas (:mod:`agenttune.config_reference`);
``reference/api/`` has one page per public module of ``agenttune``, rendered by mkdocstrings from its docstrings,
laid out as the package tree (a package's page is its folder's ``index.md``).
"""

from __future__ import annotations

from pathlib import Path

import mkdocs_gen_files

from agenttune.config_reference import config_reference

ROOT = Path(mkdocs_gen_files.config["config_file_path"]).parent


def public_modules() -> list[tuple[str, ...]]:
    """Dotted-name parts of every module and package under ``agenttune/`` whose name has no leading underscore."""
    found = []
    for path in sorted((ROOT / "agenttune").rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if not any(part.startswith("_") for part in parts):
            found.append(parts)
    return found


def main() -> None:
    with mkdocs_gen_files.open("reference/config.md", "w") as out:
        out.write(config_reference(ROOT / "conf"))
    for parts in public_modules():
        is_package = (ROOT.joinpath(*parts) / "__init__.py").is_file()
        page = Path(*parts, "index.md") if is_package else Path(*parts).with_suffix(".md")
        with mkdocs_gen_files.open(Path("reference/api", page), "w") as out:
            out.write(f"::: {'.'.join(parts)}\n")


main()
