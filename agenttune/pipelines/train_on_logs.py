"""Train the policy with ``algorithm`` on recorded trajectories: EventLog -> projection -> TRL trainer.

The smoke experiment's pipeline. ``benchmark=adp_samples`` imports Agent Data Protocol sample files from the
data folder as EventLogs (written to the run's ``eventlogs/``), :mod:`agenttune.pipelines.log_datasets` turns
them into the dataset the algorithm reads, and the policy trains for ``algorithm.max_steps`` steps.
"""

from __future__ import annotations

from pathlib import Path

from omegaconf import DictConfig

from agenttune.events import write_jsonl
from agenttune.events.adp import import_adp
from agenttune.pipelines.common import load_policy, resume_checkpoint, train_policy
from agenttune.pipelines.log_datasets import reference_similarity, training_data
from agenttune.rewards.format import tool_call_format
from agenttune.tracking.run import RunContext


def load_logs(cfg: DictConfig) -> list:
    folder = Path(cfg.paths.data_dir) / "adp_samples"
    if not folder.is_dir():
        raise FileNotFoundError(
            f"{folder} is missing: put the data folder beside the repo (../shared/data) or set AGENTTUNE_DATA_DIR"
        )
    logs = [log for name in cfg.benchmark.files for log in import_adp(folder / name)]
    return logs[: cfg.benchmark.num_train] if cfg.benchmark.num_train else logs


def run(cfg: DictConfig, run: RunContext) -> None:
    logs = load_logs(cfg)
    write_jsonl(logs, run.eventlog_dir / "train_source.jsonl")
    model, tokenizer = load_policy(cfg)
    data = training_data(cfg.algorithm, logs, tokenizer, cfg.benchmark.max_prompt_turns)
    rewards = (
        [reference_similarity, tool_call_format] if cfg.algorithm.name in ("grpo", "rloo", "ppo") else None
    )
    before = {name: param.detach().clone() for name, param in model.named_parameters() if param.requires_grad}
    train_policy(
        cfg, run, model, tokenizer, data, reward_funcs=rewards, resume_from=resume_checkpoint(cfg, run)
    )
    changed = sum(
        not param.detach().equal(before[name]) for name, param in model.named_parameters() if name in before
    )
    run.set_summary(
        {"train/source_logs": len(logs), "train/params_changed_share": changed / max(len(before), 1)}
    )
