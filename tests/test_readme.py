"""The documentation's commands and file references are real: every `python train.py ...` that the README, the
guide (docs/guide/) and the experiment pages show composes (with Hydra's compose API, as the command line would)
and passes the components check, and every repository path they name exists."""

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
PAGES = [
    ROOT / "README.md",
    *sorted((ROOT / "docs" / "guide").glob("*.md")),
    *sorted(ROOT.glob("experiments/*/*.md")),
]
PATH = re.compile(
    r"^(?:agenttune|conf|tests|scripts|experiments|examples|\.ci)/[\w./-]*$|^(?:train\.py|Makefile)$"
)


def commands(text: str | None = None) -> list[str]:
    """Every `python train.py ...` of the pages (code spans and code blocks), comments cut; usage lines
    (`+experiment=NAME [group=option ...]`) left out."""
    found = []
    texts = [text] if text is not None else [page.read_text() for page in PAGES]
    for line in "\n".join(texts).splitlines():
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
    assert len(commands(README)) >= 5
    assert "+experiment=smoke model=tiny_random" in commands(README)
    assert len(commands()) >= 20


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


def referenced_paths(text: str) -> list[str]:
    """Repository paths the text names in code spans or links (a link's `#fragment` dropped)."""
    spans = re.findall(r"`([^`\s]+)`", text) + re.findall(r"\]\(([^)#\s]+)(?:#[^)\s]*)?\)", text)
    paths = {span.split("::")[0].rstrip(".,:;") for span in spans}
    return sorted(p for p in paths if PATH.match(p) and "<" not in p and "*" not in p)


def relative_links(page: Path) -> list[str]:
    """The page's relative links (not to the web, not anchors), fragments dropped."""
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)\s]*)?\)", page.read_text())
    return sorted({t for t in targets if not re.match(r"^[a-z][a-z0-9+.-]*:|^/", t)})


def test_every_path_the_readme_names_exists():
    paths = referenced_paths(README)
    assert "examples/retrieval.py" in paths and "experiments/cuad_search/README.md" in paths
    missing = [path for path in paths if not (ROOT / path).exists()]
    assert not missing, f"README.md names paths that do not exist: {missing}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_path_a_page_names_exists(page):
    missing = [path for path in referenced_paths(page.read_text()) if not (ROOT / path).exists()]
    missing += [link for link in relative_links(page) if not (page.parent / link).exists()]
    assert not missing, f"{page.relative_to(ROOT)} names paths that do not exist: {missing}"
