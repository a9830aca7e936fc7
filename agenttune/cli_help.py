"""The text of ``python train.py --help``, built from the config tree so that it lists what is really there.

Each option is described by the first sentence of its YAML file's leading comment; an experiment or sweep also
gives its CPU time on a ``# CPU: ...`` line there. Groups are described by :data:`GROUPS`. Internal entries (the
``schema`` options of Hydra's ConfigStore) are not files, so they never appear. ``conf/hydra/default.yaml`` sets
``hydra.help.template`` to ``${agenttune_help:}``, the resolver
:func:`agenttune.config_store.register_configs` registers.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

GROUPS = {
    "model": "the policy: weights, dtype, LoRA / 4-bit QLoRA, engine (model.engine) and sampling",
    "strategy": "how the agent prompts and loops between tool calls (strategy.max_turns)",
    "harness": "the environment of an episode: tools, step budget, who plays an evaluation (harness.agent)",
    "reward": "the reward mix on-policy training optimises (reward.weights.<component>)",
    "algorithm": "the trainer, on TRL; each option has its own typed fields, algorithm.trl passes any other",
    "benchmark": "tasks, splits, metrics and scripted agents (agenttune/benchmarks/)",
    "retrieval": "the search index of the benchmarks that search (cuad_search, legalbench_rag, tau2_banking)",
    "logger": "tracking beside the run folder's metrics.jsonl and summary.json",
    "paths": "data, cache and output folders ($AGENTTUNE_DATA_DIR, $AGENTTUNE_CACHE_DIR)",
    "dpo_config": "(learning rate, steps) schedules the dpo_paper16 sweep crosses with beta",
    "workflow": "a workflow graph, for pipeline=workflow",
    "self_heal": "settings of pipeline=self_heal",
    "recipe": "settings several experiments share, included from their defaults lists",
}
LISTED_APART = (
    "experiment",
    "sweep",
    "hydra",
)  # experiments and sweeps get their own sections; hydra is Hydra's
WIDTH = 118


def header(path: Path) -> tuple[str, str]:
    """(first sentence of the file's leading comment, its ``# CPU:`` line or "")."""
    lines, cpu = [], ""
    for line in path.read_text().splitlines():
        if not line.startswith("#"):
            break
        text = line[1:].strip()
        if text.startswith("CPU:"):
            cpu = text[4:].strip()
        elif text.startswith("@package") or line.startswith("#   ") or not text:
            continue
        else:
            lines.append(text)
    prose = " ".join(lines)
    sentence = re.split(r"(?<=\.)\s", prose, maxsplit=1)[0].rstrip(".")
    return sentence, cpu


def shorten(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 3].rsplit(" ", 1)[0] + " ..."


def defaults(conf: Path) -> dict[str, str]:
    """group -> the option conf/train.yaml picks."""
    chosen = {}
    for entry in yaml.safe_load((conf / "train.yaml").read_text())["defaults"]:
        if isinstance(entry, dict):
            chosen.update({str(group): str(option) for group, option in entry.items()})
    return chosen


def options_section(
    folder: Path, prefix: str, default: str | None = None, with_cpu: bool = False
) -> list[str]:
    rows = []
    for path in sorted(folder.glob("*.yaml")):
        description, cpu = header(path)
        name = path.stem + ("*" if path.stem == default else "")
        label = f"    {prefix}{name:<{26 - len(prefix)}}"
        rows.append(label + shorten(description, WIDTH - len(label)))
        if with_cpu:
            rows.append(" " * len(label) + "CPU: " + (cpu or "not measured yet"))
    return rows


def help_text(conf: Path) -> str:
    chosen = defaults(conf)
    lines = [
        "agenttune: run, log, train and evaluate tool-using LLM agents (README.md has the quickstart and glossary).",
        "",
        "Usage: python train.py +experiment=NAME [group=option ...] [group.key=value ...]",
        "       python train.py +sweep=NAME                     a multirun; then python scripts/report.py <its folder>",
        "       python train.py +experiment=NAME --cfg job      print the composed config instead of running",
        "",
        "Try:   python train.py +experiment=smoke model=tiny_random      about 15 s on a CPU",
        "       python train.py +experiment=cuad_grpo                    the main job, 13.6 min on 2 CPU cores",
        "",
        "Experiments (+experiment=NAME):",
        *options_section(conf / "experiment", "", with_cpu=True),
        "",
        "Sweeps (+sweep=NAME):",
        *options_section(conf / "sweep", "", with_cpu=True),
        "",
        "Config groups (group=option; * marks the default):",
    ]
    for folder in sorted(p for p in conf.iterdir() if p.is_dir() and p.name not in LISTED_APART):
        lines.append(f"  {folder.name}: {GROUPS.get(folder.name, '')}")
        lines += options_section(folder, "", chosen.get(folder.name))
    lines += [
        "",
        "Top-level keys: pipeline (evaluate | rl | distill | self_evolve | train_on_logs | ...; set by every experiment),",
        "  task_name, seed, resume (continue from the newest checkpoint), init_from (start from a checkpoint folder)",
        "",
        "A group's fields: python train.py +experiment=NAME --cfg job --package <group>. Hydra's own flags: --hydra-help",
    ]
    return "\n".join(lines).replace("$", "$$") + "\n"  # Hydra substitutes $NAMES in the template
