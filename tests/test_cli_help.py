"""`python train.py --help` lists every experiment, sweep, group and option of the config tree, each in a line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from agenttune.cli_help import GROUPS, LISTED_APART, header, help_text
from agenttune.config import repo_root

CONF = Path(repo_root()) / "conf"


def test_every_option_of_the_config_tree_is_listed_with_a_description():
    text = help_text(CONF)
    for folder in (p for p in CONF.iterdir() if p.is_dir() and p.name != "hydra"):
        if folder.name not in LISTED_APART:
            assert GROUPS.get(folder.name), (
                f"conf/{folder.name}/ has no description in agenttune/cli_help.py GROUPS"
            )
        for path in folder.glob("*.yaml"):
            description, _ = header(path)
            assert description, f"{path} has no leading comment to describe it"
            assert f"    {path.stem}" in text


def test_experiments_and_sweeps_say_how_long_they_take_on_a_cpu():
    for name in ("smoke", "cuad_grpo", "cuad_distill", "legalbench_rag_transfer", "tau2_toolgraph_dpo"):
        assert header(CONF / "experiment" / f"{name}.yaml")[1]
    assert all(header(path)[1] for path in (CONF / "sweep").glob("*.yaml"))
    assert "CPU: 17.2-18.9 min on 2 cores" in help_text(CONF)


def test_the_help_hides_schema_entries_and_marks_defaults():
    text = help_text(CONF)
    assert "schema" not in text
    assert "    smollm2_135m*" in text and "    react*" in text
    assert "$AGENTTUNE" not in text.replace("$$AGENTTUNE", "")  # escaped for Hydra's template substitution


def test_train_py_help_prints_it():
    done = subprocess.run(
        [sys.executable, "train.py", "--help"], cwd=repo_root(), capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "Experiments (+experiment=NAME):" in done.stdout and "    cuad_grpo " in done.stdout
    assert "$AGENTTUNE_DATA_DIR" in done.stdout and "schema" not in done.stdout
