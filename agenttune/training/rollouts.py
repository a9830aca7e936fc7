"""On-policy rollouts from the project's episode loop: TRL's ``rollout_func`` for GRPO, and the PPO loop's sampler.

Every training rollout is an episode of :func:`agenttune.agents.episode.run_episodes` (engine + strategy +
harness, continuously batched), so training and evaluation render the same prompt tokens and ``strategy=`` changes
both. One call of :class:`EpisodeRollouts`:

1. maps each prompt TRL hands over back to its task (the dataset's prompts are the tasks' opening conversations,
   :meth:`EpisodeRollouts.dataset`; GRPO's sampler already repeats each one ``num_generations`` times, so one
   episode per prompt makes the group);
2. serves the episodes with the configured engine on the trainer's current weights: the transformers engine holds
   the live model object (no copy); an engine that loads weights itself (vLLM) gets them through
   :meth:`~agenttune.engines.base.Engine.sync_weights` each step;
3. scores each finished EventLog with the ``reward`` group (:class:`~agenttune.rewards.episode.EpisodeReward`:
   one REWARD event per component and the ``total``);
4. tags each log with the policy version (``metadata.policy``: global step and a digest of the trainable weights)
   and the sampling parameters (``metadata.sampling``) and appends it, full tier, to ``step-<N>.jsonl`` the moment
   its episode ends (fsynced: a kill mid-batch loses no finished episode); once the batch is scored, the scored
   logs replace those lines atomically;
5. returns what the trainer consumes, read from the logs by :func:`~agenttune.events.projections.rl.rl_row`:
   prompt ids, completion ids (every turn after the first prompt, tool results included), the sampling logprobs
   and ``env_mask`` (1 on generated tokens, 0 on tool results and observations).

A tool or harness exception fails its episode (an ERROR event, ``termination: error``), a reward exception fails
its episode's score (the mix's failure value and an ERROR event); :func:`episode_reward` counts both in
``episodes/failed``. An episode that never generated a token (its harness failed to start) becomes a one-token
placeholder with ``env_mask`` 0, which adds nothing to the loss.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from agenttune.agents.episode import run_episodes
from agenttune.agents.strategies import ReAct
from agenttune.engines.base import Engine, Message
from agenttune.events import EventLogWriter
from agenttune.events.io import rewrite_jsonl_tail
from agenttune.events.projections.rl import rl_row
from agenttune.events.schema import EventKind, EventLog, replace
from agenttune.harness.protocol import Harness
from agenttune.rewards.episode import EpisodeReward


@dataclass
class RolloutBatch:
    """Scored episodes and, for each, the token view a policy-gradient loss reads (see :func:`rl_row`)."""

    logs: list[EventLog]
    prompt_ids: list[list[int]]
    completion_ids: list[list[int]]
    logprobs: list[list[float]]
    env_mask: list[list[int]]
    rewards: list[float]

    def rollout_output(self) -> dict[str, Any]:
        """What a TRL ``rollout_func`` returns; the logs travel to the reward functions as ``eventlog``."""
        return {
            "prompt_ids": self.prompt_ids,
            "completion_ids": self.completion_ids,
            "logprobs": self.logprobs,
            "env_mask": self.env_mask,
            "eventlog": self.logs,
        }


def weights_digest(model: Any) -> str:
    """A 16-hex-digit blake2b digest of the trainable parameters (the adapter under LoRA, else every weight)."""
    digest = hashlib.blake2b(digest_size=8)
    for name, parameter in model.named_parameters():
        if parameter.requires_grad:
            digest.update(name.encode())
            digest.update(parameter.detach().cpu().contiguous().view(-1).view(torch.uint8).numpy())
    return digest.hexdigest()


def engine_sampling(model_cfg: Any) -> dict[str, Any]:
    """The sampling parameters of the ``model`` group's engine (recorded in every training log)."""
    return {
        "temperature": model_cfg.temperature,
        "top_p": model_cfg.top_p,
        "max_new_tokens": model_cfg.max_new_tokens,
    }


def _without_none(value: Any) -> Any:
    if isinstance(value, dict):
        return {name: _without_none(item) for name, item in value.items() if item is not None}
    if isinstance(value, list):
        return [_without_none(item) for item in value]
    return value


def _key(prompt: list[Message]) -> str:
    """A conversation's identity. Fields that are None are left out, at any depth: the trainer's prompt dataset
    (Arrow) gives every row of a column the same fields, so a message comes back with ``tool_calls: None`` and a
    tool call with the other calls' argument names set to None."""
    return json.dumps(_without_none(prompt), sort_keys=True, default=str)


class EpisodeRollouts:
    """Rollouts of ``tasks`` through the episode loop (see the module docstring).

    Args:
        tasks: the training tasks (anything the harness's ``reset`` takes).
        make_harness: a fresh harness for one episode of a task (``make_harness(task)``).
        strategy: the ``strategy`` group's object; it drives training rollouts as it drives evaluation.
        reward: scores the finished episodes.
        make_engine: builds the engine around the live policy the first time it is needed.
        sampling: the engine's sampling parameters, recorded in every log's ``metadata.sampling``.
        log_dir: where ``step-<N>.jsonl`` files go (``<run>/eventlogs/train``); None keeps no files.
        source: the logs' ``source`` (the benchmark's name).
        record: ``record(log, harness)`` completes a finished episode before it is scored (the benchmark's
            :meth:`~agenttune.benchmarks.base.Benchmark.record`); None keeps it as the loop wrote it.
        on_batch: ``on_batch(step, logs)`` gets every scored batch (e.g. to send a sample to the tracker).
    """

    def __init__(
        self,
        tasks: Sequence[Any],
        make_harness: Callable[[Any], Harness],
        strategy: ReAct,
        reward: EpisodeReward,
        make_engine: Callable[[Any], Engine],
        sampling: dict[str, Any],
        log_dir: str | Path | None = None,
        source: str = "",
        record: Callable[[EventLog, Harness], EventLog] | None = None,
        on_batch: Callable[[int, list[EventLog]], None] | None = None,
    ) -> None:
        self.make_harness, self.strategy, self.reward, self.record = make_harness, strategy, reward, record
        self.on_batch = on_batch
        self.make_engine, self.sampling, self.source = make_engine, dict(sampling), source
        self.log_dir = Path(log_dir) if log_dir is not None else None
        self.tasks = list(tasks)
        self.prompts = [self.opening(task) for task in self.tasks]
        self._by_prompt: dict[str, Any] = {}
        for task, prompt in zip(self.tasks, self.prompts, strict=True):
            if _key(prompt) in self._by_prompt:
                raise ValueError(f"two training tasks open with the same conversation: {prompt[-1]!r}")
            self._by_prompt[_key(prompt)] = task
        self._engine: Engine | None = None
        self._digest: tuple[int, str] | None = None

    def opening(self, task: Any) -> list[Message]:
        """The conversation an episode of ``task`` starts from: the harness's opening through the strategy."""
        return self.strategy.init(task, self.make_harness(task).reset(task)).messages

    def dataset(self):
        """The prompt dataset for the trainer: one row per task (``prompt``: its opening conversation)."""
        from datasets import Dataset

        return Dataset.from_list([{"prompt": prompt} for prompt in self.prompts])

    def engine(self, model: Any) -> Engine:
        """The engine serving ``model``'s current weights."""
        if self._engine is None:
            self._engine = self.make_engine(model)
        else:
            self._engine.sync_weights(model)
        return self._engine

    def sample(self, prompts: Sequence[list[Message]], model: Any, step: int) -> RolloutBatch:
        """One episode per prompt with ``model`` as the policy at ``step``; scored, tagged and written."""
        try:
            tasks = [self._by_prompt[_key(prompt)] for prompt in prompts]
        except KeyError as missing:
            raise KeyError(
                f"a prompt that opens no training task: {missing}; use EpisodeRollouts.dataset()"
            ) from None
        engine = self.engine(model)
        policy = {"step": step, "digest": self._policy_digest(model, step)}

        def tag(log: EventLog, harness: Harness) -> EventLog:
            log = self.record(log, harness) if self.record is not None else log
            return replace(log, metadata={**log.metadata, "policy": policy, "sampling": self.sampling})

        # each episode is appended to step-<N>.jsonl as it ends, then swapped for its scored version
        path = self.log_dir / f"step-{step}.jsonl" if self.log_dir is not None else None
        writer = EventLogWriter(path) if path is not None else None
        offset = path.stat().st_size if path is not None else 0
        was_training = model.training
        try:
            harnesses = [self.make_harness(task) for task in tasks]
            logs = run_episodes(
                engine,
                harnesses,
                self.strategy,
                tasks,
                writer=writer.write if writer is not None else None,
                record=tag,
                source=self.source,
                full=True,
            )
        finally:
            model.train(was_training)
            if writer is not None:
                writer.close()
        logs = self.reward(logs, tasks)
        if path is not None:
            rewrite_jsonl_tail(path, offset, logs)
        if self.on_batch is not None:
            self.on_batch(step, logs)
        rows = [self._row(log, engine) for log in logs]
        return RolloutBatch(
            logs=logs,
            prompt_ids=[row["prompt_ids"] for row in rows],
            completion_ids=[row["completion_ids"] for row in rows],
            logprobs=[row["old_logprobs"] for row in rows],
            env_mask=[row["tool_mask"] for row in rows],
            rewards=[row["reward"] for row in rows],
        )

    def __call__(self, prompts: list[list[Message]], trainer: Any) -> dict[str, Any]:
        """TRL's ``rollout_func(prompts, trainer)``; the logs travel to the reward function as ``eventlog``."""
        model = trainer.accelerator.unwrap_model(trainer.model)
        return self.sample(prompts, model, trainer.state.global_step).rollout_output()

    def _policy_digest(self, model: Any, step: int) -> str:
        if self._digest is None or self._digest[0] != step:
            self._digest = (step, weights_digest(model))
        return self._digest[1]

    @staticmethod
    def _row(log: EventLog, engine: Engine) -> dict[str, Any]:
        if any(event.logprobs is not None for event in log.events):
            return rl_row(log)
        stop = engine.tokenizer.eos_token_id  # the episode failed before its first turn
        total = log.rewards("episode").get("total", 0.0)
        return {
            "prompt_ids": [stop],
            "completion_ids": [stop],
            "old_logprobs": [0.0],
            "tool_mask": [0],
            "reward": total,
        }


def failed(log: EventLog) -> bool:
    """Whether an episode failed: its harness or a tool raised, or a reward component raised on it."""
    return log.metadata.get("termination") == "error" or any(
        event.kind == EventKind.ERROR and event.payload.source == "reward" for event in log.events
    )


def episode_metrics(logs: Sequence[EventLog]) -> dict[str, float]:
    """The mean of every reward component (``reward/<name>``), the number of failed episodes (``episodes/failed``)
    and the mean number of tool calls per episode (``episodes/tool_calls``)."""
    rewards = [log.rewards("episode") for log in logs]
    metrics = {}
    for name in sorted({name for components in rewards for name in components}):
        values = [components[name] for components in rewards if name in components]
        metrics[f"reward/{name}"] = math.fsum(values) / len(values)
    metrics["episodes/failed"] = float(sum(failed(log) for log in logs))
    calls = [sum(event.kind == EventKind.TOOL_CALL for event in log.events) for log in logs]
    metrics["episodes/tool_calls"] = sum(calls) / len(calls)
    return metrics


def episode_reward(
    completions: list, eventlog: list[EventLog], log_metric: Callable | None = None, **_: Any
) -> list[float]:
    """TRL reward function: each rollout's ``total``, scored from its EventLog during the rollout; logs
    :func:`episode_metrics` through TRL's ``log_metric``."""
    if log_metric is not None:
        for name, value in episode_metrics(eventlog).items():
            log_metric(name, value)
    return [log.rewards("episode")["total"] for log in eventlog]
