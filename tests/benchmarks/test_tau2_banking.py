"""tau2 banking_knowledge: agenttune's domain on the shared data, scored by tau2's installed evaluators."""

from __future__ import annotations

import json
import shutil

import pytest

from agenttune.benchmarks.tau2.banking.data import BankingDataError, load_db
from agenttune.benchmarks.tau2.domains import load_tasks, make_environment
from agenttune.benchmarks.tau2.harness import Tau2Harness
from agenttune.benchmarks.tau2.metrics import episode_reward
from agenttune.benchmarks.tau2.oracle import PERTURBATIONS, oracle_script, perturbed_script, script_engine
from agenttune.benchmarks.tau2.runner import run_tasks
from agenttune.events.schema import Event, ToolCallPayload

DOMAIN = "banking_knowledge"
# verification + discoverable reads/writes, user tools given and called, card replacement, account opening and
# money moved into it, debit card order + activation, an ACTION-scored transfer task
SAMPLE = ["task_001", "task_015", "task_031", "task_039", "task_055", "task_062", "task_077", "task_034"]


@pytest.fixture(scope="module")
def tasks():
    return {task.id: task for task in load_tasks(DOMAIN, "base")}


def harness() -> Tau2Harness:
    return Tau2Harness(DOMAIN)


def play(tasks, ids, agent):
    return run_tasks(agent, harness, [tasks[i] for i in ids], DOMAIN, "test")


def call(name: str, call_id: str = "c1", **arguments) -> Event:
    return Event(payload=ToolCallPayload(call_id=call_id, name=name, arguments=arguments))


def test_splits_and_tools(tasks):
    assert len(tasks) == 97
    assert len(load_tasks(DOMAIN, "train")) + len(load_tasks(DOMAIN, "test")) == 97
    names = {schema["function"]["name"] for schema in harness().tool_schemas()}
    assert {"KB_search", "log_verification", "unlock_discoverable_agent_tool", "call_discoverable_agent_tool",
            "give_discoverable_user_tool", "transfer_to_human_agents"} <= names  # fmt: skip
    user = {schema["function"]["name"] for schema in harness().user_tool_schemas()}
    assert {"call_discoverable_user_tool", "apply_for_credit_card", "submit_referral"} <= user


def test_oracle_scores_one_with_taus_evaluator_on_a_sample(tasks):
    logs = play(tasks, SAMPLE, lambda task: script_engine(oracle_script(task)))
    assert [episode_reward(log) for log in logs] == [1.0] * len(SAMPLE)
    # gold actions run without errors (the ids our tools create are the ids later gold steps use)
    errors = [e for log in logs for e in log.events if e.kind == "tool_result" and e.payload.is_error]
    assert errors == []


@pytest.mark.parametrize("perturbation", sorted(PERTURBATIONS))
def test_perturbed_oracles_score_below_one_where_they_change_the_task(tasks, perturbation):
    kinds = {**harness().tool_kinds(), **harness().user_tool_kinds()}
    changed = [i for i in SAMPLE if i != "task_034" and perturbed_script(tasks[i], perturbation, kinds)]
    if perturbation != "repeat_read":  # banking's gold starts with a write (the verification log)
        assert changed
    logs = play(tasks, changed, lambda task: script_engine(perturbed_script(task, perturbation, kinds)))
    assert all(episode_reward(log) < 1.0 for log in logs)


@pytest.mark.slow
def test_oracle_scores_one_on_all_97_tasks(tasks):
    logs = play(tasks, sorted(tasks), lambda task: script_engine(oracle_script(task)))
    assert sum(episode_reward(log) == 1.0 for log in logs) == 97


def test_discoverable_tool_must_be_unlocked_and_arguments_checked(tasks):
    h = harness()
    h.reset(tasks["task_031"])
    arguments = json.dumps({"user_id": "890389b165"})
    steps = [
        call("call_discoverable_agent_tool", agent_tool_name="get_all_user_accounts_by_user_id_3847", arguments=arguments),
        call("unlock_discoverable_agent_tool", agent_tool_name="no_such_tool_0000"),
        call("no_such_tool"),
        call("unlock_discoverable_agent_tool", agent_tool_name="get_all_user_accounts_by_user_id_3847"),
        call("call_discoverable_agent_tool", agent_tool_name="get_all_user_accounts_by_user_id_3847", arguments="{bad"),
        call("call_discoverable_agent_tool", agent_tool_name="get_all_user_accounts_by_user_id_3847", arguments='{"x": 1}'),
        call("unlock_discoverable_agent_tool", agent_tool_name="get_payment_history_6183"),
        call("call_discoverable_agent_tool", agent_tool_name="get_payment_history_6183",
             arguments='{"credit_card_account_id": "cc_890389b165_silver", "months": "three"}'),
        call("change_user_email", user_id="890389b165"),
        call("call_discoverable_agent_tool", agent_tool_name="get_all_user_accounts_by_user_id_3847", arguments=arguments),
    ]  # fmt: skip
    results = [h.step(step).observations[0].payload for step in steps]
    assert [r.is_error for r in results] == [True, True, True, False, True, True, False, True, True, False]
    messages = [r.content for r in results]
    assert "unlock_discoverable_agent_tool first" in messages[0]
    assert "unknown agent discoverable tool 'no_such_tool_0000'" in messages[1]
    assert "no_such_tool" in messages[2]
    assert "not valid JSON" in messages[4]
    assert "has no parameter x" in messages[5]
    assert "months must be of type int" in messages[7]
    assert "new_email" in messages[8]
    assert "cc_890389b165_silver" in messages[9]


def test_database_never_leaks_between_episodes(tasks):
    h = harness()
    h.reset(tasks["task_031"])
    h.step(call("change_user_email", user_id="890389b165", new_email="leak@example.com"))
    h.step(call("unlock_discoverable_agent_tool", agent_tool_name="get_all_user_accounts_by_user_id_3847"))
    h.reset(tasks["task_031"])
    user = h.step(call("get_user_information_by_id", user_id="890389b165")).observations[0].payload.content
    assert "leak@example.com" not in user
    locked = h.step(call("call_discoverable_agent_tool", agent_tool_name="get_all_user_accounts_by_user_id_3847",
                         arguments='{"user_id": "890389b165"}')).observations[0].payload  # fmt: skip
    assert locked.is_error and "unlock" in locked.content
    assert make_environment(DOMAIN).tools.db == make_environment(DOMAIN).tools.db


def test_snapshot_restores_unlocks_and_writes(tasks):
    h = harness()
    h.reset(tasks["task_031"])
    saved = h.snapshot()
    h.step(call("unlock_discoverable_agent_tool", agent_tool_name="get_all_user_accounts_by_user_id_3847"))
    h.step(call("change_user_email", user_id="890389b165", new_email="after@example.com"))
    h.restore(saved)
    env = h._require_episode().env
    assert env.tools.db.unlocked_tools == [] and env.user_tools.db is env.tools.db
    assert env.tools.db.users.data["890389b165"]["email"] != "after@example.com"


def test_kb_search_finds_the_document_that_names_a_tool():
    result = make_environment(DOMAIN).tools.KB_search("open a personal checking account eligibility")
    assert "open_bank_account_4821" in result


def test_missing_or_malformed_data_folder_is_a_clear_error(tmp_path, monkeypatch, data_dir):
    monkeypatch.setenv("AGENTTUNE_DATA_DIR", str(tmp_path))
    with pytest.raises(BankingDataError, match="tau2_banking_knowledge does not exist"):
        load_db()
    folder = tmp_path / "tau2_banking_knowledge"
    folder.mkdir()
    with pytest.raises(BankingDataError, match="db.json is missing"):
        load_db()
    (folder / "db.json").write_text("{not json")
    with pytest.raises(BankingDataError, match="db.json is not valid JSON"):
        load_db()
    (folder / "db.json").write_text(json.dumps({"users": {"data": []}}))
    with pytest.raises(BankingDataError, match="users.data"):
        load_db()
    shutil.copy(data_dir / "tau2_banking_knowledge" / "db.json", folder / "db.json")
    raw = json.loads((folder / "db.json").read_text()) | {"lockers": {"data": {}}}
    (folder / "db.json").write_text(json.dumps(raw))
    with pytest.raises(BankingDataError, match="lockers"):
        load_db()


def test_toolgraph_unlock_before_call_and_policy_rules(tasks):
    from agenttune.benchmarks.tau2.rules import rules_for
    from agenttune.selfevolve.config import ToolGraphConfig
    from agenttune.selfevolve.guard import ToolGraphHarness
    from agenttune.selfevolve.toolgraph import ToolGraph

    graph = ToolGraph.from_harness(harness(), rules=rules_for(DOMAIN))
    assert graph.prerequisites("open_bank_account_4821") == [
        {"log_verification"},
        {"unlock_discoverable_agent_tool:open_bank_account_4821"},
    ]
    assert graph.prerequisites("get_bank_account_transactions_9173") == [
        {"unlock_discoverable_agent_tool:get_bank_account_transactions_9173"}
    ]
    assert "open_bank_account_4821" not in graph.planning_prompt()  # discovery stays the agent's job
    gated = ToolGraphHarness(harness(), graph, ToolGraphConfig())
    gated.reset(tasks["task_031"])
    read = call("call_discoverable_agent_tool", agent_tool_name="get_all_user_accounts_by_user_id_3847",
                arguments='{"user_id": "890389b165"}')  # fmt: skip
    blocked = gated.step(read).observations[0].payload
    assert (
        blocked.is_error
        and "unlock_discoverable_agent_tool:get_all_user_accounts_by_user_id_3847" in blocked.content
    )
    gated.step(
        call("unlock_discoverable_agent_tool", "c2", agent_tool_name="get_all_user_accounts_by_user_id_3847")
    )
    read = call("call_discoverable_agent_tool", "c3", agent_tool_name="get_all_user_accounts_by_user_id_3847",
                arguments='{"user_id": "890389b165"}')  # fmt: skip
    assert not gated.step(read).observations[0].payload.is_error


def test_attribution_and_divergence_pairs_on_banking_episodes(tasks):
    from agenttune.benchmarks.tau2.metrics import gold_action_matched
    from agenttune.benchmarks.tau2.oracle import scripted_agent
    from agenttune.selfevolve.attribution import attribute
    from agenttune.selfevolve.divergence import DivergenceConfig, build_dpo_pairs

    kinds = harness().tool_kinds()
    logs = []
    for name in ("oracle", "skip_write", "wrong_argument", "loop"):
        logs += run_tasks(scripted_agent(name, kinds), lambda: Tau2Harness(DOMAIN, max_steps=30),
                          [tasks["task_031"], tasks["task_055"]], DOMAIN, name)  # fmt: skip
    failures = [log for log in logs if episode_reward(log) < 1.0]
    assert len(failures) == 6 and all(attribute(log, kinds) for log in failures)
    pairs = build_dpo_pairs(logs, "", DivergenceConfig(validation_fraction=0.0), gold_action_matched)
    assert pairs.counts["success_logs"] == 2 and pairs.train
    for row in pairs.train:
        assert row["chosen"] != row["rejected"]


def test_self_evolution_takes_four_domains_and_averages_over_tasks(tmp_path):
    from agenttune.benchmarks.base import load_benchmark
    from agenttune.benchmarks.tau2.banking import knowledge
    from tests.conftest import compose_config

    cfg = compose_config(["+experiment=tau2_toolgraph_dpo", "retrieval=bm25s"], tmp_path)
    assert list(cfg.benchmark.domains) == ["airline", "retail", "telecom", "banking_knowledge"]
    benchmark = load_benchmark(cfg)
    assert knowledge._SETTINGS.backend == "bm25s" and knowledge._SETTINGS.cache_dir == str(
        cfg.paths.cache_dir
    )
    banking = benchmark.domain_tasks(DOMAIN, "eval", 3)
    telecom = benchmark.domain_tasks("telecom", "eval", 1)
    agent = lambda kind: lambda task: benchmark.teacher(task, None, kind)  # noqa: E731
    logs = run_tasks(agent("oracle"), lambda: benchmark.domain_harness(DOMAIN), banking, DOMAIN)
    logs += run_tasks(agent("skip_write"), lambda: benchmark.domain_harness("telecom"), telecom, "telecom")
    metrics = benchmark.metrics(logs, banking + telecom)
    assert metrics[f"{DOMAIN}/avg_reward"] == 1.0 and metrics["telecom/avg_reward"] == 0.0
    assert metrics["avg_reward"] == 0.75  # weighted by tasks: 3 banking at 1.0, 1 telecom at 0.0


def test_malformed_documents_and_tasks_are_clear_errors(tmp_path):
    from agenttune.benchmarks.tau2.banking.data import load_documents, load_raw_tasks

    with pytest.raises(BankingDataError, match="holds no documents"):
        load_documents(tmp_path)
    (tmp_path / "documents").mkdir()
    (tmp_path / "documents" / "doc_1.json").write_text(json.dumps({"id": "doc_1", "content": "text"}))
    with pytest.raises(
        BankingDataError, match="doc_1.json: a document needs string fields id, title and content"
    ):
        load_documents(tmp_path)
    (tmp_path / "tasks.json").write_text(json.dumps({"id": "task_1"}))
    with pytest.raises(BankingDataError, match="expected a list of tasks"):
        load_raw_tasks(tmp_path)


@pytest.mark.parametrize(
    "overrides",
    [
        ["+experiment=tau2_oracle", "benchmark=tau2_banking", "retrieval=bm25s"],
        ["+experiment=tau2_toolgraph_dpo", "retrieval=hybrid"],  # banking is one of its four domains
    ],
)
def test_retrieval_choice_is_read_where_banking_is_run(overrides, tmp_path):
    from agenttune.pipelines.fit import check_fit
    from tests.conftest import compose_config

    check_fit(compose_config(overrides, tmp_path), overrides)  # raises when retrieval= would be ignored


def test_unlocks_and_reads_leave_the_db_hash_writes_change_it():
    env = make_environment(DOMAIN)
    pristine = env.get_db_hash()
    env.tools.unlock_discoverable_agent_tool("get_all_user_accounts_by_user_id_3847")
    env.tools.call_discoverable_agent_tool("get_all_user_accounts_by_user_id_3847", '{"user_id": "123"}')
    assert env.get_db_hash() == pristine
    env.tools.unlock_discoverable_agent_tool("open_bank_account_4821")
    args = '{"user_id": "123", "account_type": "savings", "account_class": "Silver Plus Saver Account"}'
    assert "opened" in env.tools.call_discoverable_agent_tool("open_bank_account_4821", args)
    assert env.get_db_hash() != pristine
