"""benchmark=bfcl_multi_turn: BFCL's own checker scores the episodes, the oracle passes every category, each
perturbed oracle fails, and the self-evolution method gets a domain."""

from __future__ import annotations

import pytest

pytest.importorskip(
    "bfcl_eval", reason="needs the bfcl-eval package, which `make setup` installs (--no-deps)"
)

from agenttune.benchmarks.base import load_benchmark  # noqa: E402
from agenttune.benchmarks.bfcl.checker import bfcl_check  # noqa: E402
from agenttune.benchmarks.bfcl.tools import tool_kinds  # noqa: E402
from agenttune.harness.bfcl import CATEGORIES  # noqa: E402
from agenttune.stages.phases import scored_episodes  # noqa: E402
from tests.conftest import compose_config  # noqa: E402


def bfcl(category: str, *overrides: str):
    cfg = compose_config(
        ["+experiment=tau2_oracle", "benchmark=bfcl_multi_turn", f"benchmark.category={category}", *overrides]
    )
    return cfg, load_benchmark(cfg)


@pytest.mark.parametrize("category", CATEGORIES)
def test_the_oracle_passes_and_a_perturbed_oracle_fails_every_category(category):
    cfg, benchmark = bfcl(category)
    tasks = benchmark.tasks("eval", limit=6)
    logs, scores = scored_episodes(cfg, benchmark, benchmark.scripted_agent("oracle"), tasks)
    assert (
        [score["avg_reward"] for score in scores] == [score["turn_accuracy"] for score in scores] == [1.0] * 6
    )
    assert {log.metadata["domain"] for log in logs} == {category}
    logs, scores = scored_episodes(cfg, benchmark, benchmark.scripted_agent("wrong_argument"), tasks)
    assert sum(score["avg_reward"] for score in scores) < 6
    # a wrong argument fails its turn, not the turns before it
    assert all(s["turn_accuracy"] < 1 for s in scores if not s["avg_reward"])
    assert any(0 < s["turn_accuracy"] < 1 for s in scores)
    assert all(
        log.metadata["bfcl_error_type"] for log, s in zip(logs, scores, strict=True) if not s["avg_reward"]
    )


def test_miss_func_holds_a_function_back_until_its_turn():
    _, benchmark = bfcl("miss_func")
    [task] = benchmark.tasks("eval", limit=1)
    harness = benchmark.harness(task)
    harness.reset(task)
    [(turn, [added])] = task.tools_added.items()
    assert added not in {s["function"]["name"] for s in harness.tool_schemas()}
    assert f"'name': '{added}'" in task.turns[turn]


def test_long_context_loads_bfcls_large_state():
    _, base = bfcl("base")
    _, long = bfcl("long_context")
    [short_task], [long_task] = base.tasks("eval", limit=1), long.tasks("eval", limit=1)
    assert long_task.load_options == {"long_context": True} and short_task.load_options == {}
    sizes = []
    for benchmark, task in ((base, short_task), (long, long_task)):
        harness = benchmark.harness(task)
        harness.reset(task)
        sizes.append(len(repr(vars(harness.state.instances[task.classes[0]]))))
    assert sizes[1] > 2 * sizes[0]


def first_task_as_played() -> tuple[dict, list[list[str]], list[list[list[str]]]]:
    """The first base test task's record, its gold calls, and the gold played one call a step."""
    _, benchmark = bfcl("base")
    [task] = benchmark.tasks("eval", limit=1)
    _, records, ground_truth = benchmark._data()
    gold = ground_truth[task.id]
    return records[task.id], gold, [[[call] for call in turn] for turn in gold]


def test_bfcls_checker_fails_wrong_or_missing_calls():
    record, gold, as_played = first_task_as_played()
    assert bfcl_check(record, gold, as_played)["valid"]
    assert bfcl_check(record, gold, [[step for step in turn[:-1]] for turn in as_played])["valid"] is False
    assert bfcl_check(record, gold, as_played[:-1])["error_type"] == "multi_turn:force_terminated"


def test_turns_passed_counts_the_leading_turns_bfcls_checker_passes():
    record, gold, as_played = first_task_as_played()
    turns, unasked = len(gold), [["mkdir(dir_name='not_asked_for')"]]
    assert bfcl_check(record, gold, as_played)["turns_passed"] == turns
    # unfinished: credit for the turns it played
    assert bfcl_check(record, gold, as_played[:-1])["turns_passed"] == turns - 1
    assert bfcl_check(record, gold, [*as_played[:-1], unasked])["turns_passed"] == turns - 1
    assert bfcl_check(record, gold, [unasked, *as_played[1:]])["turns_passed"] == 0


def test_an_unfinished_episode_is_scored_as_bfcl_scores_it():
    cfg, benchmark = bfcl("base", "strategy.max_turns=2")
    tasks = benchmark.tasks("eval", limit=2)
    logs, scores = scored_episodes(cfg, benchmark, benchmark.scripted_agent("oracle"), tasks)
    assert [s["avg_reward"] for s in scores] == [0.0, 0.0]
    assert {log.metadata["bfcl_error_type"] for log in logs} == {"multi_turn:force_terminated"}


def test_the_domain_describes_every_tool_with_measured_kinds():
    _, benchmark = bfcl("base")
    domain = benchmark.domain("multi_turn_base")
    names = {s["function"]["name"] for s in domain.harness.tool_schemas()}
    assert {"cd", "ls", "post_tweet", "get_stock_info"} <= names and names == set(domain.tool_kinds)
    kinds = tool_kinds()
    # they change BFCL's state
    assert kinds["mkdir"] == kinds["post_tweet"] == kinds["place_order"] == "write"
    # cd moves a private pointer, unchecked by BFCL
    assert kinds["ls"] == kinds["cat"] == kinds["cd"] == "read"
    # a stateless class: by its name
    assert kinds["add"] == "read" and kinds["trading_get_login_status"] == "read"
    assert set(domain.collection_agents) == {"oracle", "skip_write", "repeat_read", "wrong_argument", "loop"}
    assert "file_content" in domain.harness.tool_outputs()["cat"]


def test_splits_and_bad_categories():
    _, benchmark = bfcl("base")
    train, test = benchmark.tasks("train"), benchmark.tasks("eval")
    assert (len(train), len(test)) == (67, 133) and not {t.id for t in train} & {t.id for t in test}
    with pytest.raises(ValueError, match="choose one of"):
        bfcl("multi_turn_composite")


def test_the_teacher_is_token_exact_with_a_tokenizer(tokenizer):
    """Distillation trains on the teacher's tokens: given a tokenizer, its episodes are full-tier logs."""
    cfg, benchmark = bfcl("base")
    [task] = benchmark.tasks("train", limit=1)
    [log], _ = scored_episodes(cfg, benchmark, lambda t: benchmark.teacher(t, tokenizer), [task])
    assert log.tier == "full" and log.token_ids and log.metadata["reward"] == 1.0
