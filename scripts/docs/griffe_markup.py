"""A griffe extension that renders the project's reStructuredText habits in its docstrings as Markdown.

The API reference (``scripts/docs/gen_reference.py``) renders docstrings as Markdown, where these habits of the
project's docstrings read badly, so each is rewritten before rendering:

* a doctest (a ``>>>`` line through the next blank line) becomes a ``pycon`` code block, so its output
  (``[0.0, 1.0]``) is not read as a link;
* a Sphinx role (``:class:`~agenttune.config.AlgorithmConfig```) becomes a link to the object's entry in the
  reference where it has one, else the name as code;
* a simple table (columns under ``====  ====`` borders) becomes a Markdown table (its closing border would
  otherwise turn the last row into a heading);
* a paragraph that introduces a literal block ends in one colon, not two.

mkdocs.yml names this file under the python handler's ``extensions``.
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


BORDER = re.compile(r"^(\s*)=+(?:\s+=+)+\s*$")


def _escape_pipes(cell: str) -> str:
    """A pipe outside code would end the Markdown cell; inside a code span it stays as it is."""
    parts = re.split(r"(`+[^`]*`+)", cell)
    return "".join(part if i % 2 else part.replace("|", "\\|") for i, part in enumerate(parts))


def _cells(line: str, starts: list[int]) -> list[str]:
    ends = [*starts[1:], len(line)]
    return [line[start:end].strip() for start, end in zip(starts, ends, strict=True)]


def _markdown_table(lines: list[str]) -> list[str]:
    """One simple table (its border lines included) as Markdown table lines, at the table's indentation. A row
    whose first cell is empty, or closes a bracket the row above left open, continues that row; a table with
    three borders has a header row."""
    indent = BORDER.match(lines[0]).group(1)
    starts = [match.start() for match in re.finditer(r"=+", lines[0])]
    borders = [i for i, line in enumerate(lines) if BORDER.match(line)]
    header_end = borders[1] if len(borders) == 3 else 0
    header, rows = [""] * len(starts), []
    for i, line in enumerate(lines):
        if i in borders or not line.strip():
            continue
        cells = _cells(line, starts)
        if i < header_end:
            header = cells
        elif rows and (not cells[0] or rows[-1][0].count("(") > rows[-1][0].count(")")):
            rows[-1] = [f"{above} {more}".strip() for above, more in zip(rows[-1], cells, strict=True)]
        else:
            rows.append(cells)

    def row(cells: list[str]) -> str:
        return indent + "| " + " | ".join(map(_escape_pipes, cells)) + " |"

    return [row(header), indent + "|" + " --- |" * len(starts), *map(row, rows)]


def _table_end(lines: list[str], start: int) -> int | None:
    """The line of the border that closes the table opened at ``start``: the next border followed by a blank
    line or the end of the text."""
    for j in range(start + 1, len(lines)):
        if BORDER.match(lines[j]) and (j + 1 == len(lines) or not lines[j + 1].strip()):
            return j
    return None


def rst_blocks(text: str) -> str:
    """``text`` with its simple tables as Markdown tables and ``::`` before a literal block as ``:``."""
    lines, out, i = text.splitlines(), [], 0
    while i < len(lines):
        end = _table_end(lines, i) if BORDER.match(lines[i]) else None
        if end is not None:
            out += _markdown_table(lines[i : end + 1])
            i = end + 1
            continue
        out.append(lines[i][:-1] if lines[i].endswith("::") and lines[i].strip() != "::" else lines[i])
        i += 1
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
                text = fence_doctests(rst_blocks(obj.docstring.value))
                obj.docstring.value = render_roles(text, obj, loader.modules_collection)
