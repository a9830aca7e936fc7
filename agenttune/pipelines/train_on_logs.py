"""``pipeline=train_on_logs``: train on a benchmark's recorded trajectories (the smoke experiment).

``benchmark=adp_samples`` imports Agent Data Protocol sample files from the data folder as EventLogs (written to
``eventlogs/train_source.jsonl``). Algorithms that learn from recorded data (sft, dpo, bco, kto) train on the
projection they read (:mod:`agenttune.training.log_datasets`); on-policy ones (grpo, rloo, ppo) rewrite the
recorded assistant turns through the episode loop, every rollout in ``eventlogs/train/``. The policy trains for
``algorithm.max_steps`` steps; ``train/params_changed_share`` says how many parameter tensors moved.
"""

from __future__ import annotations

from omegaconf import DictConfig

from agenttune.benchmarks.base import load_benchmark
from agenttune.events import write_jsonl
from agenttune.stages.phases import train_on_policy
from agenttune.stages.policy import load_policy, resume_checkpoint, train_policy
from agenttune.tracking.run import RunContext
from agenttune.training import algorithm_info
from agenttune.training.log_datasets import training_data


def run(cfg: DictConfig, run: RunContext) -> None:
    benchmark = load_benchmark(cfg)
    logs = benchmark.recorded_logs()
    write_jsonl(logs, run.eventlog_dir / "train_source.jsonl")
    model, tokenizer = load_policy(cfg)
    before = {name: param.detach().clone() for name, param in model.named_parameters() if param.requires_grad}
    resume_from = resume_checkpoint(cfg, run)
    if algorithm_info(cfg.algorithm.name).on_policy:
        train_on_policy(cfg, run, benchmark, model, tokenizer, resume_from)
    else:
        data = training_data(cfg.algorithm, logs, tokenizer, cfg.benchmark.max_prompt_turns)
        train_policy(cfg, run, model, tokenizer, data, resume_from=resume_from)
    changed = sum(
        not param.detach().equal(before[name]) for name, param in model.named_parameters() if name in before
    )
    run.set_summary(
        {"train/source_logs": len(logs), "train/params_changed_share": changed / max(len(before), 1)}
    )
