"""``pipeline=self_evolve``: the self-evolution method on any benchmark that describes its domains
(:class:`~agenttune.benchmarks.base.Domain`; tau2 does): self trajectories -> failure attribution -> ToolGraph ->
divergence-point DPO -> selection -> evaluation of baseline, ToolGraph and ToolGraph + DPO per domain.

1. Collect trajectories on each domain's train tasks (``benchmark.num_train`` > 0 per domain): the policy's own
   episodes (``self_evolve.policy_episodes`` per task, sampled at ``model.temperature``), and the domain's
   collection agents: successes from the oracle and failures from the perturbed oracles (scripted engines through
   the one episode loop), so that pairs exist even while the policy fails every task.
2. Failure attribution counts -> ``selfevolve/attributed_<category>``. Failures the benchmark blames on its simulated
   user (an LLM user that quit or contradicted its instructions, ``user_fault`` metadata) are neither attributed nor
   mined for pairs: ``selfevolve/user_faults`` counts them, ``pairs/dropped_user_fault`` those left out of pairs.
3. One ToolGraph per domain from the domain's tools and rules, its weights fitted on the successful trajectories.
4. Divergence-point DPO pairs with the ToolGraph planning prompt, rendered as the policy is sent its conversation
   (the domain's ``action_is_correct`` drops rejected actions that were correct); counts after each filter ->
   ``pairs/<name>``.
5. DPO (TRL, through ``train_policy``), checkpoints every ``algorithm.save_steps``.
6. Checkpoint selection: per checkpoint, the mean chosen reward ``beta * (log p_policy - log p_ref)`` of the
   chosen actions of the validation pairs (train pairs when no task fell in validation) -> keep checkpoints
   with a positive one (all when none is), then the best end-to-end reward of the ToolGraph-wrapped policy on
   ``SELECTION_TASKS`` train tasks per domain that collection did not play (:func:`selection_tasks`; never a test
   task). ``selected_checkpoint`` and ``select/<checkpoint>/*`` go to the summary.
7. Evaluation on ``benchmark.num_eval`` eval tasks per domain with ``harness.max_steps`` steps: ``baseline``
   (the initial policy), ``toolgraph`` (wrapped), ``toolgraph_dpo`` (selected checkpoint, wrapped) ->
   ``eval/<variant>/<metric>`` (the benchmark's metrics; each per-episode score as its mean over tasks with ``/n`` and
   a 95% bootstrap interval) and, against the baseline on the same tasks, per domain, as the method's paper reports
   it: ``eval/<variant>/<domain>/improved|regressed`` (task counts) and the paired reward change
   ``eval/<variant>/<domain>/delta/<metric>`` with its interval (``/ci_low``, ``/ci_high``; above zero: improved);
   and against the variant before it, what the step itself changed (DPO over ToolGraph):
   ``eval/toolgraph_dpo/<domain>/minus_toolgraph/<metric>``.

A ``resume=true`` job continues its killed run (:mod:`agenttune.tracking.resume`): it takes every phase that run
recorded whole instead of playing it again (the collection, so that the DPO it continues trains on the same
pairs; the selection's and the evaluations' episodes, whose policies are then the same) and continues DPO from its
newest checkpoint, beside the earlier checkpoints it links in, so that selection compares the same checkpoints as
a run that was never killed. A greedy baseline on a deterministic benchmark does not depend on the seed: it is
taken from an earlier run whose config differs in ``seed`` alone (:func:`seed_free_baseline`), so a study's seeds
evaluate their common starting policy once.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import torch
from omegaconf import DictConfig

from agenttune.benchmarks.base import Benchmark, Domain, load_benchmark
from agenttune.config import ModelConfig
from agenttune.engines.base import Engine
from agenttune.engines.factory import build_engine
from agenttune.engines.templates import encode, render
from agenttune.events.schema import EventLog
from agenttune.models.loading import seeded_weights
from agenttune.selfevolve.attribution import SEVERITY, attribute_failures
from agenttune.selfevolve.controller import ToolGraphController
from agenttune.selfevolve.divergence import DivergenceConfig, build_dpo_pairs
from agenttune.selfevolve.toolgraph import user_fault_reason
from agenttune.stages.phases import (
    episodes,
    evaluation_model_config,
    policy_engine,
    toolgraph_controllers,
)
from agenttune.stages.policy import load_policy, resume_checkpoint, train_policy, typed
from agenttune.stats import paired_deltas, paired_differences, task_means, with_intervals
from agenttune.tracking.run import RunContext
from agenttune.training import TrainingData
from agenttune.training.checkpoints import checkpoint_folders

log = logging.getLogger(__name__)

COLLECT_MAX_STEPS = 50  # scripted collection is cheap; tau2's oracle needs the full step budget
SELECTION_TASKS = 2  # held-out train tasks per domain for the end-to-end part of checkpoint selection
TRL_COLUMNS = ("prompt", "chosen", "rejected", "tools")
VARIANTS = ("baseline", "toolgraph", "toolgraph_dpo")  # evaluated in this order, each to eval_<variant>.jsonl


def collect(
    cfg: DictConfig, run: RunContext, benchmark: Benchmark, domain: Domain, policy: Engine
) -> dict[str, list[EventLog]]:
    """Episodes on the train tasks of ``domain`` by who played them: ``policy`` (its own,
    ``self_evolve.policy_episodes`` per task, within ``harness.max_steps``), then every collection agent of the
    domain with the full step budget; each to ``eventlogs/collect_<domain>_<agent>.jsonl``."""
    tasks = benchmark.domain_tasks(domain.name, "train")
    harness_for = lambda task: benchmark.domain_harness(domain.name, COLLECT_MAX_STEPS)  # noqa: E731
    own = [task for task in tasks for _ in range(cfg.self_evolve.policy_episodes)]
    name = f"collect_{domain.name}_policy"
    played = {"policy": episodes(cfg, benchmark, policy, own, name, run, reuse_recorded=True)} if own else {}
    for kind, agent in domain.collection_agents.items():
        name = f"collect_{domain.name}_{kind}"
        played[kind] = episodes(
            cfg,
            benchmark,
            agent,
            tasks,
            name,
            run,
            reuse_recorded=True,
            harness_for=harness_for,
            max_turns=COLLECT_MAX_STEPS,
        )
    return played


def completion_logps(model, tokenizer, rows: Sequence[Mapping[str, Any]], max_length: int) -> list[float]:
    """Summed log-probability of each row's chosen message given its prompt (left-truncated to max_length)."""
    values = []
    device = next(model.parameters()).device
    with torch.no_grad():
        for row in rows:
            prompt_ids = encode(tokenizer, render(tokenizer, row["prompt"], row["tools"], True))
            full_ids = encode(
                tokenizer, render(tokenizer, [*row["prompt"], *row["chosen"]], row["tools"], False)
            )
            n_completion = max(1, len(full_ids) - len(prompt_ids))
            ids = full_ids[-max_length:]
            n_completion = min(n_completion, len(ids) - 1)
            input_ids = torch.tensor([ids], device=device)
            logits = model(input_ids=input_ids).logits[0, :-1].float()
            logps = torch.log_softmax(logits, dim=-1).gather(1, input_ids[0, 1:, None])[:, 0]
            values.append(float(logps[-n_completion:].sum()))
    return values


def tokenizer_for(cfg: DictConfig):
    from agenttune.models import load_tokenizer

    return load_tokenizer(typed(cfg.model, ModelConfig), cfg.paths.cache_dir, cfg.init_from)


def prompt_tokens(tokenizer, row: Mapping[str, Any]) -> int:
    return len(encode(tokenizer, render(tokenizer, row["prompt"], row["tools"], True)))


def preference_dataset(rows: Sequence[Mapping[str, Any]]):
    """TRL's conversational preference rows; messages are kept as JSON values (Arrow would otherwise merge every
    row's tool-call arguments into one struct, adding the other rows' keys as nulls)."""
    from datasets import Dataset, Features, Json

    features = Features({column: Json() for column in TRL_COLUMNS})
    return Dataset.from_list([{k: row[k] for k in TRL_COLUMNS} for row in rows], features=features)


def load_checkpoint(cfg: DictConfig, path: Path):
    """The policy saved at ``path``: a LoRA adapter loaded onto the base model, or a full model folder."""
    adapter = path / "adapter_model.safetensors"
    if adapter.exists():
        from peft import set_peft_model_state_dict
        from safetensors.torch import load_file

        model, _ = load_policy(cfg)
        set_peft_model_state_dict(model, load_file(str(adapter)))
        return model
    return load_policy(cfg, init_from=str(path))[0]


def selection_tasks(benchmark: Benchmark) -> list[Any]:
    """The ``SELECTION_TASKS`` train tasks of each domain after the ``benchmark.num_train`` that collection plays, so
    that choosing a checkpoint neither reuses the episodes it was trained from nor looks at a test task."""
    collected = benchmark.limit("train", None)
    tasks = []
    for domain in benchmark.domains:
        held_out = (
            benchmark.domain_tasks(domain, "train", 0)[collected : collected + SELECTION_TASKS]
            if collected
            else []
        )
        if not held_out:
            raise ValueError(
                f"benchmark.num_train={collected} leaves no {domain} train task for checkpoint selection: "
                "lower it below the size of the train split"
            )
        tasks += held_out
    return tasks


def checkpoints(run: RunContext) -> list[Path]:
    return checkpoint_folders(run.checkpoint_dir) or [run.checkpoint_dir / "final"]


def evaluate_policy(
    cfg: DictConfig,
    run: RunContext,
    benchmark: Benchmark,
    model,
    tokenizer,
    name: str,
    controllers: Mapping[str, ToolGraphController] | None,
    tasks: Sequence[Any],
    split: str = "eval",
    across_seeds: bool = False,
) -> list[EventLog]:
    """Episodes of the policy on ``tasks`` of ``split`` (inside ``controllers`` when given), also sent to the
    tracker's ``<name>/trajectories`` table; ``across_seeds``: see :func:`~agenttune.stages.phases.episodes`."""
    engine = policy_engine(cfg, model, tokenizer)
    logs = episodes(
        cfg, benchmark, engine, tasks, name, run, controllers, reuse_recorded=True, across_seeds=across_seeds
    )
    run.log_episodes(f"{name}/trajectories", logs, split)
    return logs


def seed_free_baseline(cfg: DictConfig, benchmark: Benchmark) -> bool:
    """Whether the baseline's episodes do not depend on the seed: its weights do not (a pretrained model or
    ``init_from``, not a random one built from the seed), it decodes greedily and the benchmark is deterministic;
    then a ``resume=true`` job takes them from an earlier seed of the same config (the airline study's seeds 0 and
    1, one student, scored every task alike)."""
    model = evaluation_model_config(cfg)
    return not seeded_weights(model, cfg.init_from) and model.temperature == 0 and benchmark.deterministic()


def task_scores(
    benchmark: Benchmark, logs: Sequence[EventLog], overall: bool = False
) -> dict[str, dict[str, float]]:
    """Each task's mean of every per-episode score over its episodes (trials); empty when the benchmark has none.
    ``overall`` keeps only the scores that name no domain (``avg_reward``, not ``<domain>/avg_reward``)."""
    scores = benchmark.episode_scores(logs, [])
    if scores is None:
        return {}
    if overall:
        scores = [{name: value for name, value in score.items() if "/" not in name} for score in scores]
    return task_means((benchmark.task_key(log), score) for log, score in zip(logs, scores, strict=True))


def compare_variants(
    cfg: DictConfig,
    run: RunContext,
    benchmark: Benchmark,
    domains: Mapping[str, Domain],
    variants: Mapping[str, Sequence[EventLog]],
) -> dict[str, float]:
    """``eval/<variant>/<metric>`` for every variant, and for each after the first (``baseline``), per domain, the
    tasks it improved and regressed (the domain's ``compare``) and the paired change of each overall score
    (``delta/<metric>``, after minus baseline on the tasks both ran) with its 95% bootstrap interval over tasks;
    a variant after the second is also paired with the one before it (``minus_<previous>/<metric>``). The scores
    per task go to ``task_scores.json`` under ``eval/<variant>`` and the paired differences under
    ``eval/<variant>/<domain>/delta`` (and ``.../minus_<previous>``), so that ``scripts/compare_runs.py`` pairs
    variants and runs, and the report over seeds resamples tasks."""
    metrics: dict[str, float] = {}
    for variant, logs in variants.items():
        by_task = task_scores(benchmark, logs)
        run.set_task_scores(f"eval/{variant}", by_task)
        values = benchmark.metrics(logs, []) | with_intervals(list(by_task.values()), cfg.seed)
        metrics |= {f"eval/{variant}/{key}": value for key, value in values.items()}
    names = list(variants)
    for name, domain in domains.items():
        in_domain = {v: [e for e in variants[v] if e.metadata.get("domain") == name] for v in names}
        scores = {
            v: task_scores(benchmark, in_domain[v], overall=True) for v in names
        }  # each variant scored once
        for index, variant in enumerate(names[1:], start=1):
            change = domain.compare(in_domain[names[0]], in_domain[variant])
            metrics[f"eval/{variant}/{name}/improved"] = change["improved"]
            metrics[f"eval/{variant}/{name}/regressed"] = change["regressed"]
            references = {"delta": names[0]} | (
                {f"minus_{names[index - 1]}": names[index - 1]} if index > 1 else {}
            )
            for label, reference in references.items():
                key = f"eval/{variant}/{name}/{label}"
                differences = paired_differences(scores[reference], scores[variant])
                metrics |= paired_deltas(differences, cfg.seed, name=key)
                run.set_task_scores(key, differences)
    return metrics


def run(cfg: DictConfig, run: RunContext) -> None:
    benchmark = load_benchmark(cfg)
    domains = {name: benchmark.domain(name) for name in benchmark.domains}
    selection = selection_tasks(benchmark)  # before any work: a split too small to select on fails here
    summary: dict[str, Any] = {}

    # 1-4: trajectories, attribution, ToolGraphs, DPO pairs
    model, tokenizer = load_policy(cfg)
    sampling = build_engine(typed(cfg.model, ModelConfig), model.eval(), tokenizer)  # at model.temperature
    all_logs: list[EventLog] = []
    collected: dict[str, list[EventLog]] = {}
    policy_logs: dict[str, list[EventLog]] = {}
    for name, domain in domains.items():
        played = collect(cfg, run, benchmark, domain, sampling)
        policy_logs[name] = played.get("policy", [])
        collected[name] = [log for logs in played.values() for log in logs]
        all_logs += collected[name]
    successes = {name: [e for e in logs if domains[name].successful(e)] for name, logs in collected.items()}
    controllers = toolgraph_controllers(cfg, benchmark, successes)
    train_rows, val_rows = [], []
    pair_counts: Counter[str] = Counter()
    for name, domain in domains.items():
        config = controllers[name].config
        graph = controllers[name].graph
        planning = graph.planning_prompt(use_rules=config.domain_rules) if config.planning_prompt else None
        pairs = build_dpo_pairs(
            collected[name], planning, DivergenceConfig(), is_correct=domain.action_is_correct
        )
        train_rows += pairs.train
        val_rows += pairs.validation
        pair_counts.update(pairs.counts)
        summary[f"collect/{name}/episodes"] = len(collected[name])
        summary[f"collect/{name}/successes"] = len(successes[name])
        summary[f"collect/{name}/policy_episodes"] = len(policy_logs[name])
        summary[f"collect/{name}/policy_successes"] = sum(map(domain.successful, policy_logs[name]))
    # TRL drops pairs whose prompt is not shorter than max_length; count them here instead of failing later
    fits = lambda row: prompt_tokens(tokenizer_for(cfg), row) < cfg.algorithm.max_length  # noqa: E731
    too_long = sum(not fits(row) for row in train_rows + val_rows)
    train_rows, val_rows = [r for r in train_rows if fits(r)], [r for r in val_rows if fits(r)]
    pair_counts["dropped_prompt_too_long"] = too_long
    pair_counts["train_fitting"], pair_counts["validation_fitting"] = len(train_rows), len(val_rows)
    kinds = {name: domain.tool_kinds for name, domain in domains.items()}
    attributed = Counter(a.category for a in attribute_failures(all_logs, kinds))
    summary.update({f"selfevolve/attributed_{c}": attributed.get(c, 0) for c in SEVERITY})
    summary["selfevolve/user_faults"] = sum(bool(user_fault_reason(log)) for log in all_logs)
    summary.update({f"pairs/{name}": value for name, value in sorted(pair_counts.items())})
    run.set_summary(summary)
    run.log(summary)
    if not train_rows:
        raise ValueError(
            f"no DPO training pairs (counts {dict(pair_counts)}); raise benchmark.num_train or algorithm.max_length"
        )
    log.info("DPO pairs: %s", dict(pair_counts))

    # 5: DPO
    selection_rows = val_rows or train_rows
    selection_keep = [{k: row[k] for k in TRL_COLUMNS} for row in selection_rows]
    max_length = cfg.algorithm.max_length
    ref_logps = completion_logps(model.eval(), tokenizer, selection_keep, max_length)
    model.train()
    preferences = preference_dataset(train_rows)
    train_policy(
        cfg,
        run,
        model,
        tokenizer,
        TrainingData(preferences=preferences),
        resume_from=resume_checkpoint(cfg, run),
    )
    del model

    # 6: checkpoint selection
    beta = cfg.algorithm.beta
    scores: dict[str, dict[str, float]] = {}
    for path in checkpoints(run):
        policy = load_checkpoint(cfg, path).eval()
        logps = completion_logps(policy, tokenizer, selection_keep, max_length)
        chosen = beta * sum(p - r for p, r in zip(logps, ref_logps, strict=True)) / len(logps)
        scores[path.name] = {"chosen_reward": chosen}
        del policy
    positive = [name for name, s in scores.items() if s["chosen_reward"] > 0] or list(scores)
    for name in positive:
        policy = load_checkpoint(cfg, run.checkpoint_dir / name)
        logs = evaluate_policy(
            cfg, run, benchmark, policy, tokenizer, f"select_{name}", controllers, selection, "train"
        )
        scores[name]["e2e_reward"] = benchmark.metrics(logs, [])["avg_reward"]
        del policy
    selected = max(positive, key=lambda n: (scores[n]["e2e_reward"], scores[n]["chosen_reward"]))
    summary = {f"select/{name}/{key}": value for name, s in scores.items() for key, value in s.items()}
    summary.update(
        selected_checkpoint=selected,
        selection_pairs="validation" if val_rows else "train",
        select_chosen_reward=scores[selected]["chosen_reward"],
        select_chosen_reward_positive=scores[selected]["chosen_reward"] > 0,
        select_e2e_reward=scores[selected]["e2e_reward"],
    )
    run.set_summary(summary)
    log.info("selected %s: %s", selected, scores[selected])

    # 7: evaluation
    eval_tasks = [task for domain in benchmark.domains for task in benchmark.domain_tasks(domain, "eval")]
    base, _ = load_policy(cfg)
    tuned = load_checkpoint(cfg, run.checkpoint_dir / selected)
    policies = dict(zip(VARIANTS, [(base, None), (base, controllers), (tuned, controllers)], strict=True))
    seed_free = seed_free_baseline(cfg, benchmark)
    variants = {
        name: evaluate_policy(
            cfg,
            run,
            benchmark,
            policy,
            tokenizer,
            f"eval_{name}",
            wrap,
            eval_tasks,
            across_seeds=seed_free and name == "baseline",
        )
        for name, (policy, wrap) in policies.items()
    }
    metrics = compare_variants(cfg, run, benchmark, domains, variants)
    run.log(metrics)
    run.set_summary(metrics)
