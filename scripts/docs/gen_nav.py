"""Set the site's navigation from the pages that exist when the site is built (run by the mkdocs-gen-files plugin
after the other page generators; the literate-nav plugin then expands its wildcards and folders).

Each section lists its folder's pages by wildcard, each titled by its first heading, so a new page needs no entry
here: the guides (``docs/guide/*.md``) appear as soon as they are written, and a section without pages is left out.
The API reference is the package tree, one entry per module.
"""

from __future__ import annotations

import mkdocs_gen_files

PAGES = {file.src_uri for file in mkdocs_gen_files.files if file.is_documentation_page()}


def section(title: str, folder: str, *patterns: str) -> list[dict]:
    """``{title: [its index, the folder's pages by each pattern]}``, or nothing when the folder has no page."""
    if not any(page.startswith(folder + "/") for page in PAGES):
        return []
    index = [f"{folder}/index.md"] if f"{folder}/index.md" in PAGES else []
    return [{title: [*index, *(f"{folder}/{pattern}" for pattern in patterns or ("*.md",))]}]


def api_tree(folder: str) -> list:
    """The API pages under ``folder`` as the package tree, titled by module name, each package's page first."""
    tree: dict = {}
    for page in sorted(PAGES):
        if page.startswith(folder + "/"):
            *packages, module = page.removeprefix(folder + "/").removesuffix(".md").split("/")
            node = tree
            for package in packages:
                node = node.setdefault(package, {})
            node[module] = page

    def entries(node: dict) -> list:
        first = [node.pop("index")] if "index" in node else []
        return first + [{name: entries(sub) if isinstance(sub, dict) else sub} for name, sub in node.items()]

    return entries(tree)


def main() -> None:
    nav = [{"Home": "index.md"}]
    if "readme.md" in PAGES:
        nav.append({"README": "readme.md"})
    nav += section("Guides", "guide")
    nav += section("How to extend", "extend")
    nav += section("Experiments", "experiments", "*.md", "*/*.md")  # an experiment's pages under its own
    nav.append({"Reference": [{"Configuration": "reference/config.md"}, {"API": api_tree("reference/api")}]})
    if "CHANGELOG.md" in PAGES:
        nav.append({"Changelog": "CHANGELOG.md"})
    mkdocs_gen_files.config["nav"] = nav


main()
