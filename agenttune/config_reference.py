"""The configuration reference page, generated from ``conf/`` and the typed schemas so that it cannot go stale.

Every config group (a folder of ``conf/``) gets a section: what it is for (:data:`agenttune.cli_help.GROUPS`), each
of its options (a YAML file, described by the first sentence of its leading comment, as ``--help`` describes it) and,
where the group has a typed schema, every key with its type, default and help. A key's help is the comment beside
or above its field in the dataclass, the schemas' own convention; a nested dataclass contributes its fields as
dotted keys (``lora.r``), a list of dataclasses as ``nodes[].id``. The documentation build writes the page
(``scripts/docs/gen_reference.py``); ``python -m agenttune.config_reference`` prints it.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import io
import json
import re
import textwrap
import tokenize
import typing
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from omegaconf import MISSING

from agenttune.cli_help import GROUPS, defaults, header
from agenttune.config import AlgorithmConfig, repo_root
from agenttune.config_store import GROUP_SCHEMAS, TrainConfig
from agenttune.training.registry import algorithms

# Groups whose options are whole-config overlays (``# @package _global_``) with no schema of their own.
OVERLAYS = {
    "experiment": "pinned combinations of the other groups, one file an experiment (`+experiment=NAME`)",
    "sweep": "Hydra multiruns, each pulling in its experiment (`+sweep=NAME`)",
    "hydra": "Hydra's own settings: run and sweep folder names, `--help`, the Ray and Slurm launchers",
}


@dataclass(frozen=True)
class Key:
    """One row of a schema's table."""

    name: str  # dotted from the group's root: lora.r, nodes[].id
    type: str  # the annotation as written in the schema
    default: str  # rendered as YAML would read it; "required" where the schema leaves it MISSING
    help: str


def _comment_lines(source: str) -> dict[int, str]:
    """Line number -> the text of the comment on that line (tokenize, so a ``#`` inside a string is no comment)."""
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return {tok.start[0]: tok.string.lstrip("#").strip() for tok in tokens if tok.type == tokenize.COMMENT}


@cache
def field_comments(cls: type) -> dict[str, str]:
    """Field name -> its comment, for the fields ``cls`` itself annotates: the comment lines right above the field
    followed by any comment inside or at the end of its statement, joined into one line."""
    source = textwrap.dedent(inspect.getsource(cls))
    lines = source.splitlines()
    comments = _comment_lines(source)
    found = {}
    for node in ast.parse(source).body[0].body:
        if not (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)):
            continue
        above, line = [], node.lineno - 1
        while line >= 1 and lines[line - 1].strip().startswith("#"):
            above.insert(0, comments[line])
            line -= 1
        inside = [comments[n] for n in range(node.lineno, node.end_lineno + 1) if n in comments]
        found[node.target.id] = " ".join(above + inside)
    return found


def _help(cls: type, name: str) -> str:
    """The comment of field ``name`` where it is declared: ``cls`` or the nearest base class that annotates it."""
    owner = next(base for base in cls.__mro__ if name in vars(base).get("__annotations__", {}))
    return field_comments(owner).get(name, "")


def _first_sentence(doc: str | None) -> str:
    """The first sentence of a docstring, on one line ("" for none, or for the one dataclasses generates)."""
    text = " ".join((doc or "").split())
    if not text or text.endswith(")") and "(" in text.split()[0]:  # the generated "Name(field: type, ...)"
        return ""
    return text.split(". ")[0].rstrip(".")


def _default(field: dataclasses.Field) -> object:
    if field.default is not dataclasses.MISSING:
        return field.default
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    return MISSING


def _render(value: object) -> str:
    if value == MISSING:
        return "required"
    return json.dumps(value)


def _type_name(annotation: object) -> str:
    return annotation if isinstance(annotation, str) else getattr(annotation, "__name__", repr(annotation))


def _nested_schema(annotation: object) -> tuple[type, str] | None:
    """(the dataclass, the key suffix) of a field that holds one dataclass (``""``) or a list of them (``[]``)."""
    if dataclasses.is_dataclass(annotation):
        return annotation, ""
    if typing.get_origin(annotation) is list:
        (item,) = typing.get_args(annotation)
        if dataclasses.is_dataclass(item):
            return item, "[]"
    return None


def schema_keys(
    schema: type, prefix: str = "", skip: frozenset[str] = frozenset(), defaults: object = None
) -> list[Key]:
    """Every key of ``schema`` in declaration order, nested dataclasses expanded after their own row. ``defaults``
    is the instance a parent's field creates, whose values are then the defaults (``warm_start.algorithm.name`` is
    ``"sft"``)."""
    hints = typing.get_type_hints(schema)
    keys = []
    for field in dataclasses.fields(schema):
        if field.name in skip:
            continue
        name = prefix + field.name
        value = _default(field) if defaults is None else getattr(defaults, field.name)
        nested = _nested_schema(hints[field.name])
        shown = "(keys below)" if nested and nested[1] == "" else _render(value)
        about = _help(schema, field.name) or (nested and _first_sentence(nested[0].__doc__)) or ""
        keys.append(Key(name, _type_name(field.type), shown, about))
        if nested:
            instance = value if dataclasses.is_dataclass(value) else None
            keys += schema_keys(nested[0], f"{name}{nested[1]}.", defaults=instance)
    return keys


def _cell(text: str) -> str:
    """``text`` safe in a Markdown table cell: outside code spans, a pipe would end the cell and ``<name>`` would
    read as an HTML tag (inside them, Markdown keeps both as they are)."""
    parts = re.split(r"(`+[^`]*`+)", text)
    return "".join(
        part if i % 2 else part.replace("|", "\\|").replace("<", "&lt;") for i, part in enumerate(parts)
    )


def keys_table(keys: list[Key]) -> str:
    rows = ["| key | type | default | help |", "| --- | --- | --- | --- |"]
    for key in keys:
        rows.append(f"| `{key.name}` | `{key.type}` | `{key.default}` | {_cell(key.help)} |")
    return "\n".join(rows)


def options_table(folder: Path, default: str | None) -> str:
    rows = ["| option | description |", "| --- | --- |"]
    for path in sorted(folder.rglob("*.yaml")):
        option = path.relative_to(folder).with_suffix("").as_posix()
        mark = " (default)" if option == default else ""
        rows.append(f"| `{option}`{mark} | {_cell(header(path)[0])} |")
    return "\n".join(rows)


def _algorithm_section() -> list[str]:
    """The keys every algorithm shares, then each algorithm's own."""
    shared = {field.name for field in dataclasses.fields(AlgorithmConfig)}
    lines = [
        "Keys every algorithm has (`AlgorithmConfig`):",
        "",
        keys_table(schema_keys(AlgorithmConfig)),
        "",
    ]
    for name, algorithm in algorithms().items():
        own = schema_keys(algorithm.config, skip=frozenset(shared))
        lines += [f"#### `algorithm={name}`", "", f"`{algorithm.config.__name__}`: the shared keys, and "]
        lines[-1] += "no others." if not own else "these:"
        lines += ["", keys_table(own), ""] if own else [""]
    return lines


def group_section(conf: Path, group: str, chosen: dict[str, str]) -> list[str]:
    folder = conf / group
    about = GROUPS.get(group) or OVERLAYS.get(group, "")
    lines = [f"## `{group}`", "", about[:1].upper() + about[1:] + ".", "", "### Options", ""]
    lines += [options_table(folder, chosen.get(group)), ""]
    if group == "algorithm":
        lines += ["### Keys", "", *_algorithm_section()]
    elif group in GROUP_SCHEMAS:
        schema = GROUP_SCHEMAS[group]
        lines += ["### Keys", "", f"Schema: `{schema.__module__}.{schema.__name__}`.", ""]
        lines += [keys_table(schema_keys(schema)), ""]
    return lines


def top_level_keys() -> list[Key]:
    """The keys of the primary schema outside the config groups (``seed``, ``warm_start.enabled``, ...)."""
    return schema_keys(TrainConfig, skip=frozenset(GROUP_SCHEMAS) | {"algorithm"})


def config_reference(conf: Path | None = None) -> str:
    """The reference page, in Markdown, for the config tree at ``conf`` (the repository's ``conf/``)."""
    conf = conf or Path(repo_root()) / "conf"
    chosen = defaults(conf)
    groups = sorted(path.name for path in conf.iterdir() if path.is_dir())
    lines = [
        "# Configuration reference",
        "",
        "Generated from `conf/` and the typed schemas (`agenttune/config.py`, registered by "
        "`agenttune/config_store.py`) each time the documentation is built. Pick an option with `group=option`, "
        "change a key with `group.key=value`; a misspelt key or a wrong type fails when the config is composed, "
        "naming the key.",
        "",
        "## Top-level keys",
        "",
        "Keys of the primary schema (`TrainConfig`) outside the groups; `conf/train.yaml` sets their values.",
        "",
        keys_table(top_level_keys()),
        "",
    ]
    for group in groups:
        lines += group_section(conf, group, chosen)
    return "\n".join(lines)


if __name__ == "__main__":
    print(config_reference())
