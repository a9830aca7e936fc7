"""Divergence-point DPO pairs from oracle successes and perturbed failures of real retail tasks."""

from __future__ import annotations

import pytest

pytest.importorskip("tau2.domains.retail.environment")

from agenttune.benchmarks.tau2.domains import STOP_TOKEN  # noqa: E402
from agenttune.benchmarks.tau2.harness import Tau2Harness  # noqa: E402
from agenttune.benchmarks.tau2.metrics import gold_action_matched  # noqa: E402
from agenttune.benchmarks.tau2.oracle import (  # noqa: E402
    oracle_script,
    perturbed_script,
    scripted_agent,  # noqa: E402
)
from agenttune.benchmarks.tau2.runner import run_tasks  # noqa: E402
from agenttune.engines.scripted import ScriptedEngine  # noqa: E402
from agenttune.engines.tool_calls import assistant_text  # noqa: E402
from agenttune.events.schema import replace  # noqa: E402
from agenttune.harness.scripted_agent import ScriptPolicy  # noqa: E402
from agenttune.selfevolve.divergence import (  # noqa: E402
    ACTION_KINDS,
    DivergenceConfig,
    build_dpo_pairs,
    prompt_before,
)
from agenttune.selfevolve.toolgraph import ToolGraph  # noqa: E402


@pytest.fixture(scope="module")
def setup():
    harness = Tau2Harness("retail", max_steps=12)
    tasks = [t for t in harness.tasks("base") if t.id in ("0", "5")]
    kinds = harness.tool_kinds()
    logs = []
    for name in ("oracle", "skip_write", "repeat_read", "wrong_argument", "loop"):
        make_harness = lambda: Tau2Harness("retail", max_steps=12)  # noqa: E731
        logs += run_tasks(scripted_agent(name, kinds), make_harness, tasks, "retail")
    prompt = ToolGraph.from_harness(harness).planning_prompt()
    return logs, prompt


def test_pairs_cut_at_the_divergence(setup):
    logs, prompt = setup
    pairs = build_dpo_pairs(logs, prompt, DivergenceConfig(validation_fraction=0.0))
    assert pairs.train and not pairs.validation
    by_step = {(row["task_id"], assistant_text(row["rejected"][0])[:30]): row for row in pairs.train}
    skip = next(
        r for r in pairs.train if r["task_id"] == "0" and r["rejected"][0]["content"].startswith("Everything")
    )
    assert skip["chosen"][0]["tool_calls"][0]["function"]["name"] == "exchange_delivered_order_items"
    assert skip["step"] == 4 and len(by_step) == len(pairs.train)
    for row in pairs.train:
        assert row["prompt"][0]["role"] == "system" and row["prompt"][0]["content"].endswith(prompt)
        assert row["prompt"][-1]["role"] in ("user", "tool")
        assert row["chosen"][0]["role"] == row["rejected"][0]["role"] == "assistant"
        assert row["chosen"] != row["rejected"]


def test_filter_counts(setup):
    logs, prompt = setup
    counts = build_dpo_pairs(logs, prompt).counts
    assert counts["success_logs"] == 2 and counts["failure_logs"] == 8
    dropped = sum(v for k, v in counts.items() if k.startswith("dropped_"))
    assert counts["candidates"] == dropped + counts["kept"]
    assert counts["kept"] == counts["train"] + counts["validation"]
    assert counts["dropped_near_duplicate"] > 0  # wrong_argument differs from gold by a few characters
    strict = build_dpo_pairs(logs, prompt, DivergenceConfig(near_duplicate=1.01)).counts
    assert strict.get("dropped_near_duplicate", 0) == 0 and strict["kept"] > counts["kept"]


def test_per_task_cap(setup):
    logs, prompt = setup
    capped = build_dpo_pairs(logs, prompt, DivergenceConfig(max_pairs_per_task=1, validation_fraction=0.0))
    assert len(capped.train) == len({row["task_id"] for row in capped.train})
    assert capped.counts["dropped_task_cap"] > 0


def test_train_validation_split_is_by_task(setup):
    logs, prompt = setup
    pairs = build_dpo_pairs(logs, prompt, DivergenceConfig(validation_fraction=0.5))
    train_tasks = {row["task_id"] for row in pairs.train}
    validation_tasks = {row["task_id"] for row in pairs.validation}
    assert not train_tasks & validation_tasks
    assert pairs.train and pairs.validation


def test_rows_are_conversational_preferences(setup):
    """TRL's conversational preference format: chat messages, one assistant turn each, and the tools offered."""
    logs, prompt = setup
    for row in build_dpo_pairs(logs, prompt).train:
        for message in row["prompt"] + row["chosen"] + row["rejected"]:
            assert {"role", "content"} <= set(message) and isinstance(message["content"], str)
        assert len(row["chosen"]) == len(row["rejected"]) == 1
        assert row["tools"] and row["tools"][0]["type"] == "function"


def test_pair_prompts_are_the_conversations_the_policy_was_sent():
    """One renderer: a pair's prompt, rendered from the failed log's events before the divergent turn, is exactly
    the conversation the engine got for that turn in the episode loop."""
    sent: dict[str, list] = {}

    def recording(kind, kinds):
        def engine_for(task):
            script = oracle_script(task) if kind == "oracle" else perturbed_script(task, kind, kinds)
            policy = ScriptPolicy(script, STOP_TOKEN)

            def record(conversation, tools):
                sent.setdefault(f"{kind}/{task.id}", []).append(list(conversation))
                return policy(conversation, tools)

            return ScriptedEngine(record)

        return engine_for

    harness = Tau2Harness("retail", max_steps=12)
    tasks = [t for t in harness.tasks("base") if t.id == "0"]
    kinds = harness.tool_kinds()
    logs = []
    for kind in ("oracle", "skip_write", "wrong_argument"):
        make_harness = lambda: Tau2Harness("retail", max_steps=12)  # noqa: E731
        logs += run_tasks(recording(kind, kinds), make_harness, tasks, "retail", kind)
    for log in logs:
        turns = sent[f"{log.metadata['agent']}/{log.task_id}"]
        starts = [i for i, e in enumerate(log.events) if e.actor == "agent" and e.kind in ACTION_KINDS]
        assert [prompt_before(log, start, None) for start in starts] == turns
    pairs = build_dpo_pairs(logs, None, DivergenceConfig(near_duplicate=1.01, validation_fraction=0.0))
    assert pairs.train
    for row in pairs.train:
        assert any(
            row["prompt"] == turn for key, turns in sent.items() for turn in turns if key != "oracle/0"
        )


def test_benchmark_check_drops_rejected_actions_that_were_correct(setup):
    logs, prompt = setup
    kept = build_dpo_pairs(logs, prompt).counts
    checked = build_dpo_pairs(logs, prompt, is_correct=gold_action_matched).counts
    assert kept.get("dropped_rejected_correct", 0) == 0
    assert checked["candidates"] == kept["candidates"]


def test_failures_blamed_on_the_user_are_not_mined(setup):
    """A failure flagged as the user's (task 0's) gives no pairs; the clean failures of task 5 still do."""
    logs, prompt = setup
    config = DivergenceConfig(validation_fraction=0.0)
    blamed = lambda log: log.task_id == "0" and log.metadata["reward"] <= config.failure_reward  # noqa: E731
    flagged = [
        replace(log, metadata={**log.metadata, "user_fault": "ended_early"}) if blamed(log) else log
        for log in logs
    ]
    clean, pairs = build_dpo_pairs(logs, prompt, config), build_dpo_pairs(flagged, prompt, config)
    assert {row["task_id"] for row in clean.train} == {"0", "5"}
    assert {row["task_id"] for row in pairs.train} == {"5"}
    assert pairs.train == [row for row in clean.train if row["task_id"] == "5"]
    assert pairs.counts["dropped_user_fault"] == sum(map(blamed, logs)) > 0
    assert "dropped_user_fault" not in clean.counts
    assert pairs.counts["failure_logs"] == clean.counts["failure_logs"] - pairs.counts["dropped_user_fault"]
