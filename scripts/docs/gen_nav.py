"""Write the site's navigation, ``SUMMARY.md`` (read by the literate-nav plugin), from the pages that exist when
the site is built (run by the mkdocs-gen-files plugin after the other page generators).

Each section lists its folder's pages by wildcard, each titled by its first heading, so a new page needs no entry
here: the guides (``docs/guide/*.md``) appear as soon as they are written, a section without pages is left out.
"""

from __future__ import annotations

import mkdocs_gen_files

PAGES = {file.src_uri for file in mkdocs_gen_files.files if file.is_documentation_page()}


def section(title: str, folder: str, pattern: str = "*.md") -> list[str]:
    """A nav section of ``folder``'s pages matching ``pattern``, its index first; nothing when it has none."""
    if not any(page.startswith(folder + "/") for page in PAGES):
        return []
    index = [f"    * [{title}]({folder}/index.md)"] if f"{folder}/index.md" in PAGES else []
    return [f"* {title}", *index, f"    * {folder}/{pattern}"]


def main() -> None:
    lines = ["* [Home](index.md)"]
    if "readme.md" in PAGES:
        lines.append("* [README](readme.md)")
    lines += section("Guides", "guide")
    lines += section("How to extend", "extend")
    lines += section("Experiments", "experiments", "*/README.md")
    lines += ["* Reference", "    * [Configuration](reference/config.md)", "    * [API](reference/api/)"]
    if "CHANGELOG.md" in PAGES:
        lines.append("* [Changelog](CHANGELOG.md)")
    with mkdocs_gen_files.open("SUMMARY.md", "w") as out:
        out.write("\n".join(lines) + "\n")


main()
