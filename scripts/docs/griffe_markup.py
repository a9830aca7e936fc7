"""A griffe extension that renders the project's reStructuredText habits in its docstrings as Markdown.

The API reference (``scripts/docs/gen_reference.py``) renders docstrings as Markdown, where two habits of the
project's docstrings read badly: a doctest's output (``[0.0, 1.0]``) would be read as a link, and a Sphinx role
(``:class:`~agenttune.config.AlgorithmConfig```) would show its markup. Each doctest (a ``>>>`` line through the
next blank line) becomes a ``pycon`` code block, and each role a link to the object's entry in the reference where
it has one (``AlgorithmConfig``, linked), else the name as code. mkdocs.yml names this file under the python
handler's ``extensions``.
"""

from __future__ import annotations

import re

import griffe

ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|data|attr|exc|obj|const):`(~?)([\w.]+)(?:\(\))?`")
PACKAGE = "agenttune"


def fence_doctests(text: str) -> str:
    """``text`` with every doctest block inside a ``pycon`` fence at the block's own indentation."""
    out, in_block = [], False
    for line in text.splitlines():
        indent = line[: len(line) - len(line.lstrip())]
        if not in_block and line.lstrip().startswith(">>>"):
            out.append(f"{indent}```pycon")
            fence, in_block = f"{indent}```", True
        elif in_block and not line.strip():
            out.append(fence)
            in_block = False
        out.append(line)
    if in_block:
        out.append(fence)
    return "\n".join(out)


def documented_path(name: str, obj: griffe.Object, collection: griffe.ModulesCollection) -> str | None:
    """The reference's identifier of ``name`` as ``obj``'s docstring means it (absolute, or relative to its class
    or module); None when the reference has no entry for it (another package, a private name)."""
    scopes = [obj.path, obj.parent.path if obj.parent else "", obj.module.path, ""]
    for scope in scopes:
        path = f"{scope}.{name}" if scope else name
        try:
            found = collection[path]
            if found.is_alias:
                found = found.final_target
        except (KeyError, ValueError, griffe.AliasResolutionError, griffe.CyclicAliasError):
            continue
        parts = found.path.split(".")
        if parts[0] == PACKAGE and not any(part.startswith("_") for part in parts):
            return found.path
    return None


def render_roles(text: str, obj: griffe.Object, collection: griffe.ModulesCollection) -> str:
    def one(match: re.Match) -> str:
        short, name = match.groups()
        label = name.rsplit(".", 1)[-1] if short else name
        path = documented_path(name, obj, collection)
        return f"[`{label}`][{path}]" if path else f"`{label}`"

    return ROLE.sub(one, text)


def walk(obj: griffe.Object):
    """``obj`` and every object defined in it (not the names it imports)."""
    yield obj
    for member in obj.members.values():
        if not member.is_alias:
            yield from walk(member)


class DocstringMarkup(griffe.Extension):
    def on_package(self, *, pkg: griffe.Module, loader: griffe.GriffeLoader, **kwargs) -> None:
        if pkg.name != PACKAGE:
            return
        for obj in walk(pkg):
            if obj.docstring:
                text = fence_doctests(obj.docstring.value)
                obj.docstring.value = render_roles(text, obj, loader.modules_collection)
