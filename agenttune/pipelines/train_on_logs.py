"""Train the policy with ``algorithm`` on recorded trajectories: EventLog -> projection -> TRL trainer.

The smoke experiment's pipeline. ``benchmark=adp_samples`` imports Agent Data Protocol sample files from the
data folder as EventLogs (written to the run's ``eventlogs/``), :mod:`agenttune.pipelines.log_datasets` turns
them into the dataset the algorithm reads (on-policy algorithms: recorded turns the policy rewrites through the
episode loop, every rollout in ``eventlogs/train/``), and the policy trains for ``algorithm.max_steps`` steps.
"""

from __future__ import annotations

from pathlib import Path

from omegaconf import DictConfig

from agenttune.events import write_jsonl
from agenttune.events.adp import import_adp
from agenttune.harness.recorded_turns import RecordedTurnHarness
from agenttune.pipelines.common import episode_rollouts, load_policy, resume_checkpoint, train_policy
from agenttune.pipelines.log_datasets import recorded_turn_reward, recorded_turns, training_data
from agenttune.tracking.run import RunContext
from agenttune.training import TrainingData

ON_POLICY = ("grpo", "rloo", "ppo")


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
    if cfg.algorithm.name in ON_POLICY:
        tasks = recorded_turns(logs, cfg.benchmark.max_prompt_turns)
        rollouts = episode_rollouts(cfg, run, tokenizer, tasks, RecordedTurnHarness, recorded_turn_reward())
        data = TrainingData()
    else:
        rollouts, data = None, training_data(cfg.algorithm, logs, tokenizer, cfg.benchmark.max_prompt_turns)
    before = {name: param.detach().clone() for name, param in model.named_parameters() if param.requires_grad}
    train_policy(cfg, run, model, tokenizer, data, resume_from=resume_checkpoint(cfg, run), rollouts=rollouts)
    changed = sum(
        not param.detach().equal(before[name]) for name, param in model.named_parameters() if name in before
    )
    run.set_summary(
        {"train/source_logs": len(logs), "train/params_changed_share": changed / max(len(before), 1)}
    )
