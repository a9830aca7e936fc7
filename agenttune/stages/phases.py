"""The phases a job is made of, each over any benchmark (:mod:`agenttune.benchmarks.base`): the pipelines, the
workflows' nodes and the self-healing rounds compose them.

- :func:`play` runs one episode per task (the policy's engine, or a scripted agent per task) and
  :func:`scored_episodes` scores them with the ``reward`` group;
- :func:`evaluate` runs one phase of episodes (the policy's engine, or a scripted agent per task; inside the
  ToolGraph controller of each domain when asked, see :func:`toolgraph_controllers`) and logs the benchmark's
  metrics as ``<phase>/<metric>``;
- :func:`distill_teacher` collects the benchmark's teacher trajectories, keeps those that pass its check and trains
  the policy on them;
- :func:`train_on_policy` trains with an on-policy algorithm on the benchmark's train tasks through the episode loop;
- :func:`paired_comparison` reports the paired before/after deltas of two evaluations of the same tasks.
"""

from __future__ import annotations

import dataclasses
import logging
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from hydra.utils import instantiate
from omegaconf import DictConfig

from agenttune.agents.episode import Writer, run_episodes, task_id
from agenttune.benchmarks.base import Benchmark
from agenttune.config import AlgorithmConfig, ModelConfig
from agenttune.engines import build_engine
from agenttune.engines.base import Engine
from agenttune.events import write_jsonl
from agenttune.events.io import EventLogWriter, rewrite_jsonl_tail
from agenttune.events.schema import EventLog
from agenttune.harness.protocol import Harness
from agenttune.progress import progress
from agenttune.selfevolve.build import build_toolgraph
from agenttune.selfevolve.controller import ToolGraphController, toolgraph_config
from agenttune.stages.policy import episode_rollouts, train_policy, typed
from agenttune.stats import paired_deltas, paired_differences, task_means, with_intervals
from agenttune.tracking.resume import recorded_episodes
from agenttune.tracking.run import RunContext
from agenttune.training import TrainingData, algorithm_config
from agenttune.training.log_datasets import training_data

log = logging.getLogger(__name__)

ScriptedAgent = Callable[[Any], Engine]  # task -> the scripted engine that plays it


def evaluation_model_config(cfg: DictConfig) -> ModelConfig:
    """The ``model`` group as evaluations sample from it: at ``model.eval_temperature`` when it is set."""
    model_cfg = typed(cfg.model, ModelConfig)
    if model_cfg.eval_temperature is None:
        return model_cfg
    return dataclasses.replace(model_cfg, temperature=model_cfg.eval_temperature)


def policy_engine(cfg: DictConfig, model, tokenizer) -> Engine:
    """The ``model`` group's engine around ``model``, in evaluation mode (:func:`evaluation_model_config`)."""
    model.eval()
    return build_engine(evaluation_model_config(cfg), model, tokenizer)


def play(
    cfg: DictConfig,
    benchmark: Benchmark,
    agent: Engine | ScriptedAgent,
    tasks: Sequence[Any],
    controller: ToolGraphController | None = None,
    harness_for: Callable[[Any], Harness] | None = None,
    max_turns: int | None = None,
    writer: Writer | None = None,
) -> list[EventLog]:
    """One episode per task with the ``strategy`` group (``max_turns`` overrides its turn budget), each in its own
    harness (``harness_for(task)``, default the benchmark's), recorded by the benchmark and handed to ``writer``
    as soon as it ends; inside ``controller``'s ToolGraph when given. An engine plays every task in one batch; a
    scripted agent (task -> engine) plays each task on its own."""
    strategy = instantiate(cfg.strategy, **({"max_turns": max_turns} if max_turns else {}))
    harnesses = [(harness_for or benchmark.harness)(task) for task in tasks]
    if controller is not None:
        harnesses, agent = [controller.harness(h) for h in harnesses], controller.agent(agent)
    options = {"source": benchmark.name, "record": benchmark.record, "writer": writer}
    if isinstance(agent, Engine):
        return run_episodes(agent, harnesses, strategy, tasks, **options)
    return [
        run_episodes(agent(task), [harness], strategy, [task], **options)[0]
        for task, harness in zip(tasks, harnesses, strict=True)
    ]


def scored_episodes(
    cfg: DictConfig,
    benchmark: Benchmark,
    agent: Engine | ScriptedAgent,
    tasks: Sequence[Any],
    max_turns: int = 0,
    path: Path | None = None,
) -> tuple[list[EventLog], list[dict[str, float]]]:
    """Episodes of ``tasks`` played by ``agent`` (an engine, or task -> scripted engine), scored by the ``reward``
    group, with the benchmark's per-episode scores (empty mappings for a benchmark without them). With ``path``,
    each episode is appended there (fsynced) the moment it ends, and swapped atomically for its scored version once
    all are scored, so a kill loses only the episodes in flight."""
    options = {"max_turns": max_turns or None}
    if path is None:
        logs = benchmark.reward()(play(cfg, benchmark, agent, tasks, **options), tasks)
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        start = path.stat().st_size if path.exists() else 0
        with EventLogWriter(path) as writer:
            played = play(cfg, benchmark, agent, tasks, writer=writer.write, **options)
        logs = benchmark.reward()(played, tasks)
        rewrite_jsonl_tail(path, start, logs)
    return logs, benchmark.episode_scores(logs, tasks) or [{} for _ in logs]


def episodes(
    cfg: DictConfig,
    benchmark: Benchmark,
    agent: Engine | ScriptedAgent,
    tasks: Sequence[Any],
    name: str,
    run: RunContext,
    controllers: Mapping[str, ToolGraphController] | None = None,
    reuse_recorded: bool = False,
    across_seeds: bool = False,
    **options: Any,
) -> list[EventLog]:
    """:func:`play` the tasks (``options`` go to it), each episode appended to ``eventlogs/<name>.jsonl`` (and
    fsynced) the moment it ends, counted on a progress bar (:mod:`agenttune.progress`). With ``controllers``
    (domain -> its ToolGraph controller) each domain's tasks run inside its controller.

    With ``reuse_recorded`` (for a phase whose policy the config fixes), a ``resume=true`` job takes the episodes
    that the killed run it continues finished in this phase and plays only the others (:func:`reused_episodes`);
    with ``across_seeds`` too (a phase whose episodes do not depend on the seed), also those of the runs whose
    config differs in ``seed`` alone. The list comes back in the order of ``tasks`` either way."""
    recorded = reused_episodes(run, benchmark, tasks, name, across_seeds) if reuse_recorded else None
    recorded = recorded or [None] * len(tasks)
    missing = [task for task, log in zip(tasks, recorded, strict=True) if log is None]
    if not missing:
        return recorded
    with run.episode_log(name) as log_writer, progress(total=len(missing), desc=name, unit="episode") as bar:

        def writer(log: EventLog) -> None:
            log_writer.write(log)
            bar.update()

        if controllers is None:
            played = play(cfg, benchmark, agent, missing, writer=writer, **options)
        else:  # each domain's tasks inside its controller, the logs put back in the order of the tasks
            played = [None] * len(missing)
            by_domain: dict[str, list[int]] = {}
            for position, task in enumerate(missing):
                by_domain.setdefault(benchmark.domain_of(task), []).append(position)
            for domain, positions in by_domain.items():
                group = [missing[position] for position in positions]
                logs = play(cfg, benchmark, agent, group, controllers[domain], writer=writer, **options)
                for position, episode in zip(positions, logs, strict=True):
                    played[position] = episode
    played_logs = iter(played)
    return [log if log is not None else next(played_logs) for log in recorded]


def reused_episodes(
    run: RunContext, benchmark: Benchmark, tasks: Sequence[Any], phase: str, across_seeds: bool = False
) -> list[EventLog | None] | None:
    """``phase``'s episodes as far as the killed run of the same config that this ``resume=true`` job continues
    recorded them (:func:`~agenttune.tracking.resume.recorded_episodes`: one entry per task, None for one it did
    not finish), the gaps filled from its seed siblings' with ``across_seeds``; copied to this run's
    ``eventlogs/<phase>.jsonl``. None when no such run reached the phase."""
    plan = run.resume_plan
    if plan is None:
        return None
    sources = [plan.killed_run] if plan.killed_run else []
    sources += list(plan.seed_siblings) if across_seeds else []
    keys = [benchmark.task_key_of(task, index) for index, task in enumerate(tasks)]
    # the first source's episodes, then each later one's in the gaps
    logs: list[EventLog | None] = [None] * len(keys)
    used = []
    for source in sources:
        recorded = recorded_episodes(source, phase, keys, key=benchmark.task_key)
        if recorded is None or all(episode is None for episode in recorded):
            continue
        used.append(str(source))
        logs = [held if held is not None else found for held, found in zip(logs, recorded, strict=True)]
    if not used:
        return None
    finished = [episode for episode in logs if episode is not None]
    with run.episode_log(phase) as writer:
        for episode in finished:
            writer.write(episode)
    log.info(
        "%s: reusing the %d of %d episodes that %s recorded (resume=true: the same config%s)",
        phase,
        len(finished),
        len(logs),
        ", ".join(used),
        ", or another seed" if across_seeds else "",
    )
    return logs


def evaluate(
    cfg: DictConfig,
    run: RunContext,
    benchmark: Benchmark,
    agent: Engine | ScriptedAgent,
    tasks: Sequence[Any],
    phase: str,
    controllers: Mapping[str, ToolGraphController] | None = None,
    split: str = "eval",
    reuse_recorded: bool = False,
) -> dict[str, dict[str, float]] | None:
    """Episodes of ``tasks`` (``eventlogs/<phase>.jsonl``; inside ToolGraph ``controllers`` when given) and the
    benchmark's metrics as ``<phase>/<metric>``: each per-episode score averaged per task (a task played several
    times counts once), then its mean over tasks with ``/n`` and 95% bootstrap interval over tasks (``/ci_low``,
    ``/ci_high``, seeded by ``seed``), beside the benchmark's aggregate metrics. The per-task scores go to
    ``task_scores.json`` under ``<phase>``; the episodes, one row each with their scores, to the tracker's
    ``<phase>/trajectories`` table (``split``: the split ``tasks`` come from). ``reuse_recorded``: see
    :func:`episodes`; the metrics of reused episodes are computed the same way.

    Returns the scores by task (for :func:`paired_comparison`), or None for a benchmark without per-episode scores.
    """
    logs = episodes(cfg, benchmark, agent, tasks, phase, run, controllers, reuse_recorded)
    scores = benchmark.episode_scores(logs, tasks)
    by_task = None
    if scores is not None:
        by_task = task_means(
            (benchmark.task_key(log), score) for log, score in zip(logs, scores, strict=True)
        )
    values = benchmark.metrics(logs, tasks) | (
        with_intervals(list(by_task.values()), cfg.seed) if by_task else {}
    )
    if not values:
        raise ValueError(f"benchmark {benchmark.name!r} defines neither episode_scores nor metrics")
    metrics = {f"{phase}/{name}": value for name, value in values.items()}
    run.log_episodes(f"{phase}/trajectories", logs, split, scores)
    run.log(metrics)
    run.set_summary(metrics)
    if by_task is not None:
        run.set_task_scores(phase, by_task)
    log.info("%s: %s", phase, {k: round(v, 3) if isinstance(v, float) else v for k, v in metrics.items()})
    return by_task


def distill_teacher(
    cfg: DictConfig,
    run: RunContext,
    benchmark: Benchmark,
    model,
    tokenizer,
    tasks: Sequence[Any],
    stage: AlgorithmConfig | None = None,
    resume_from: str | None = None,
) -> None:
    """Collect the teacher's episodes on ``tasks`` (``eventlogs/teacher.jsonl``), keep those that pass
    ``benchmark.check`` (``teacher_kept.jsonl``; ``distill/kept_share`` and ``distill/dropped_<check>``), and train
    ``model`` on them with ``cfg.algorithm``, or as the preliminary ``stage`` of another pipeline (``distill/*``
    metrics, checkpoints in ``checkpoints/distill/``)."""
    teacher_logs = episodes(
        cfg, benchmark, lambda task: benchmark.teacher(task, tokenizer), tasks, "teacher", run
    )
    by_id = {task_id(task, index): task for index, task in enumerate(tasks)}
    verdicts = [benchmark.check(episode, by_id[episode.task_id]) for episode in teacher_logs]
    kept = [episode for episode, verdict in zip(teacher_logs, verdicts, strict=True) if not verdict]
    if not kept:
        raise RuntimeError(f"no teacher trajectory passed the benchmark's checks: {Counter(verdicts)}")
    write_jsonl(kept, run.eventlog_dir / "teacher_kept.jsonl")
    stats = {
        "distill/teacher_episodes": len(teacher_logs),
        "distill/kept_share": len(kept) / len(teacher_logs),
    }
    stats |= {f"distill/dropped_{check}": count for check, count in Counter(v for v in verdicts if v).items()}
    run.log(stats)
    run.set_summary(stats)
    algorithm = stage or algorithm_config(cfg.algorithm)
    data = training_data(algorithm, kept, tokenizer)
    if stage:  # a warm start before another algorithm: never resumed on its own
        train_policy(cfg, run, model, tokenizer, data, prefix="distill", stage=stage)
    else:
        train_policy(cfg, run, model, tokenizer, data, resume_from=resume_from)


def train_on_policy(
    cfg: DictConfig, run: RunContext, benchmark: Benchmark, model, tokenizer, resume_from: str | None
) -> None:
    """Train with ``cfg.algorithm`` (grpo, rloo or ppo) on the benchmark's train tasks: every rollout an episode of
    the episode loop, scored by the benchmark's reward, written to ``eventlogs/train/step-<N>.jsonl``."""
    tasks = benchmark.tasks("train")
    rollouts = episode_rollouts(
        cfg, run, tokenizer, tasks, benchmark.harness, benchmark.reward(), benchmark.record
    )
    train_policy(cfg, run, model, tokenizer, TrainingData(), resume_from=resume_from, rollouts=rollouts)


def toolgraph_controllers(
    cfg: DictConfig, benchmark: Benchmark, success_logs: Mapping[str, Sequence[EventLog]] | None = None
) -> dict[str, ToolGraphController]:
    """One ToolGraph controller per domain of the benchmark, with the ``harness.toolgraph`` switches: the graph
    from the domain's tools and rules, weights fitted on ``success_logs[domain]`` when given."""
    config = toolgraph_config(cfg.harness.toolgraph)
    controllers = {}
    for name in benchmark.domains:
        domain = benchmark.domain(name)
        graph = build_toolgraph(domain.harness, domain.rules, config, (success_logs or {}).get(name, ()))
        controllers[name] = ToolGraphController(graph, config)
    return controllers


def paired_comparison(
    cfg: DictConfig,
    run: RunContext,
    before: Mapping[str, Mapping[str, float]] | None,
    after: Mapping[str, Mapping[str, float]] | None,
    name: str = "delta",
) -> dict[str, float]:
    """``<name>/<metric>``: after minus before on the tasks both evaluations ran (their scores by task, as
    :func:`evaluate` returns them), with its 95% bootstrap interval (a change improves a metric when the interval lies
    above zero); the per-task differences go to ``task_scores.json`` under ``name``. Empty, with a log line, when
    the benchmark gives no per-episode scores."""
    if before is None or after is None:
        log.info("the benchmark gives no per-episode scores: no paired before/after comparison")
        return {}
    differences = paired_differences(before, after)
    deltas = paired_deltas(differences, seed=cfg.seed, name=name)
    run.log(deltas)
    run.set_summary(deltas)
    run.set_task_scores(name, differences)
    return deltas
