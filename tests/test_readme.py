"""The README's commands and file references are real: every `python train.py ...` it shows composes (with Hydra's
compose API, as the command line would) and passes the components check, and every repository path it names
exists."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from omegaconf import OmegaConf

from agenttune.config import repo_root
from agenttune.pipelines.fit import check_fit
from tests.conftest import compose_config

ROOT = Path(repo_root())
README = (ROOT / "README.md").read_text()
PATH = re.compile(
    r"^(?:agenttune|conf|tests|scripts|experiments|examples|\.ci)/[\w./-]*$|^(?:train\.py|Makefile)$"
)


def commands() -> list[str]:
    """Every `python train.py ...` of the README (code spans and code blocks), comments cut; usage lines
    (`+experiment=NAME [group=option ...]`) left out."""
    found = []
    for line in README.splitlines():
        for match in re.finditer(r"python train\.py([^`\n#;]*)", line):
            args = match.group(1).strip()
            if "NAME" not in args and "[group" not in args:
                found.append(args)
    return sorted(set(found))


def overrides(args: str) -> list[str]:
    """The command's overrides: flags and `<placeholder>` values dropped, the examples' search path absolute."""
    tokens = [t for t in shlex.split(args) if not t.startswith("-") and "<" not in t and t != "..."]
    return [t.replace("file://examples/conf", f"file://{ROOT / 'examples' / 'conf'}") for t in tokens]


def test_the_readme_shows_commands():
    assert len(commands()) >= 10
    assert "+experiment=smoke model=tiny_random" in commands()


# a launcher's options come from its Hydra plugin (the `scale` extra, not installed by `make setup`)
LAUNCHER_PLUGINS = {
    "hydra/launcher=ray": "hydra_plugins.hydra_ray_launcher",
    "hydra/launcher=slurm": "hydra_plugins.hydra_submitit_launcher",
}


@pytest.mark.parametrize("args", commands())
def test_every_readme_command_composes_and_fits(args):
    for choice, plugin in LAUNCHER_PLUGINS.items():
        if choice in args:
            pytest.importorskip(plugin, reason=f"{choice} needs the scale extra")
    cfg = compose_config(overrides(args))
    if not OmegaConf.is_missing(cfg, "pipeline"):
        check_fit(cfg, overrides(args))


def referenced_paths() -> list[str]:
    spans = re.findall(r"`([^`\s]+)`", README) + re.findall(r"\]\(([^)#\s]+)\)", README)
    paths = {span.split("::")[0].rstrip(".,:;") for span in spans}
    return sorted(p for p in paths if PATH.match(p) and "<" not in p and "*" not in p)


def test_every_path_the_readme_names_exists():
    paths = referenced_paths()
    assert "examples/retrieval.py" in paths and "experiments/cuad_search/README.md" in paths
    missing = [path for path in paths if not (ROOT / path).exists()]
    assert not missing, f"README.md names paths that do not exist: {missing}"
