"""The documentation: the generated config reference covers every group, option and schema key, the recipes name
only paths that exist, and `make test` builds the site with --strict."""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
from pathlib import Path

import pytest
from omegaconf import MISSING

from agenttune.config import repo_root
from agenttune.config_reference import config_reference, schema_keys, top_level_keys
from agenttune.config_store import GROUP_SCHEMAS
from agenttune.training.registry import algorithms

ROOT = Path(repo_root())
CONF = ROOT / "conf"


@pytest.fixture(scope="module")
def reference() -> str:
    return config_reference(CONF)


def section(page: str, group: str) -> dict[str, tuple[str, str]]:
    """key -> (type, default) of every key row in ``group``'s section of the page."""
    text = page.split(f"\n## `{group}`\n", 1)[1].split("\n## ", 1)[0]
    found = re.findall(r"^\| `([^`]+)` \| `([^`]+)` \| `([^`]+)` \|", text, flags=re.MULTILINE)
    return {key: (type_, default) for key, type_, default in found}


def test_every_group_and_option_is_in_the_reference(reference):
    for group in sorted(path for path in CONF.iterdir() if path.is_dir()):
        assert f"## `{group.name}`" in reference, group.name
        for option in group.rglob("*.yaml"):
            assert f"| `{option.relative_to(group).with_suffix('').as_posix()}`" in reference, option


@pytest.mark.parametrize("group", ["model", "harness", "self_heal"])
def test_every_key_of_a_group_is_listed_with_its_default(reference, group):
    listed = section(reference, group)
    for field in dataclasses.fields(GROUP_SCHEMAS[group]):
        assert field.name in listed, field.name
        if field.default == MISSING:
            assert listed[field.name][1] == "required", field.name
        elif field.default is not dataclasses.MISSING:
            assert listed[field.name][1] == json.dumps(field.default), field.name


def test_nested_keys_are_dotted_with_their_types_and_defaults(reference):
    assert section(reference, "model")["lora.r"] == ("int", "16")
    assert section(reference, "harness")["user_model.temperature"] == ("float", "0.0")
    assert section(reference, "self_heal")["gate.min_heldout"] == ("int", "8")
    assert section(reference, "workflow")["nodes[].routes[].goto"] == ("str", "required")


def test_every_algorithm_has_a_section_with_its_own_keys(reference):
    for name, algorithm in algorithms().items():
        assert f"#### `algorithm={name}`" in reference
        for key in schema_keys(algorithm.config):
            assert f"| `{key.name}` |" in reference, (name, key.name)


@pytest.mark.parametrize(
    "group", [*GROUP_SCHEMAS, *(f"algorithm={name}" for name in algorithms()), "top level"]
)
def test_every_schema_key_has_a_line_of_help(group):
    """A field without a comment would leave its row of the reference empty: give it one."""
    if group == "top level":
        keys = top_level_keys()
    elif group.startswith("algorithm="):
        keys = schema_keys(algorithms()[group.removeprefix("algorithm=")].config)
    else:
        keys = schema_keys(GROUP_SCHEMAS[group])
    assert [key.name for key in keys if not key.help] == []


def test_make_test_builds_the_site_strictly():
    commands = subprocess.run(
        ["make", "-n", "test"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    build = next(line for line in commands.splitlines() if "mkdocs build" in line)
    assert "--strict" in build
    assert commands.index("mkdocs build") < commands.index("pytest")


@pytest.mark.parametrize(
    "page", sorted((ROOT / "docs" / "extend").glob("*.md")) + [ROOT / "docs" / "index.md"]
)
def test_recipes_name_only_paths_that_exist(page):
    spans = re.findall(r"`([^`\s]+)`", page.read_text())
    paths = [
        s
        for s in spans
        if "/" in s and "<" not in s and re.match(r"^(agenttune|conf|examples|scripts|tests)/", s)
    ]
    missing = [path for path in paths if not (ROOT / path.split("::")[0]).exists()]
    assert missing == [], page.name
