"""tau2 with a model-driven user (``harness.user=llm``) and on the leaderboard's protocol (trials, pass^k,
submission.json)."""

from __future__ import annotations

import json
import math
import re

import pytest

pytest.importorskip("tau2.domains.telecom.environment")

from agenttune.benchmarks.tau2.benchmark import Tau2  # noqa: E402
from agenttune.benchmarks.tau2.domains import STOP_TOKEN  # noqa: E402
from agenttune.benchmarks.tau2.pass_hat import pass_hat_metrics  # noqa: E402
from agenttune.benchmarks.tau2.submission import leaderboard_submission  # noqa: E402
from agenttune.benchmarks.tau2.users import LLMUser, user_model_config  # noqa: E402
from agenttune.engines.scripted import ScriptedEngine  # noqa: E402
from agenttune.events.schema import EventLog  # noqa: E402
from agenttune.stages.phases import play  # noqa: E402
from tests.conftest import compose_config  # noqa: E402

TELECOM_LLM_USER = [
    "+experiment=tau2_oracle",
    "benchmark=tau2_telecom",
    "harness.user=llm",
    "benchmark.num_eval=3",
]


class PhoneUser:
    """A scripted customer speaking through the Engine interface: states the reason for the call, runs on the phone
    (as real tool calls) whatever ``tool_name({...})`` the agent asks for, and stops when the agent is done."""

    def __init__(self) -> None:
        self.conversations: list[list[dict]] = []
        self.tools_offered: list[list[dict] | None] = []

    def __call__(self, conversation, tools):
        self.conversations.append(conversation)
        self.tools_offered.append(tools)
        last = conversation[-1]
        if last["role"] == "tool":
            return "Done, I did that on my phone."
        if len(conversation) == 2:  # the agent's greeting
            return "My phone does not work as it should."
        names = {tool["function"]["name"] for tool in tools or []}
        calls = [
            {"type": "function", "function": {"name": name, "arguments": json.loads(arguments)}}
            for name, arguments in re.findall(r"\b([a-z_]+)\((\{.*?\})\)", last["content"])
            if name in names
        ]
        if calls:
            return {"content": "", "tool_calls": calls}
        return f"Thanks, that is all. {STOP_TOKEN}"


def test_llm_user_plays_whole_telecom_episodes_with_phone_tool_calls(tmp_path):
    cfg = compose_config(TELECOM_LLM_USER, tmp_path)
    user = PhoneUser()
    benchmark = Tau2(cfg, user_engine=ScriptedEngine(user))
    tasks = benchmark.tasks("eval")
    assert isinstance(benchmark.harness(tasks[0]).user, LLMUser)
    logs = play(cfg, benchmark, lambda task: benchmark.teacher(task, None, "oracle"), tasks)
    for task, log in zip(tasks, logs, strict=True):
        requested = [a.name for a in task.evaluation_criteria.actions if a.requestor == "user"]
        assert requested, "these telecom tasks need the user to act on the phone"
        assert [call["name"] for call in log.metadata["user_tool_calls"]] == requested
        assert log.metadata["termination_reason"] == "user_stop"
        assert log.metadata["reward"] == 1.0  # tau2's evaluators see the phone's state the user's calls set
    system = user.conversations[0][0]
    assert (
        system["role"] == "system"
        and tasks[0].user_scenario.instructions.reason_for_call[:60] in system["content"]
    )
    assert {t["function"]["name"] for t in user.tools_offered[0]} >= {
        "toggle_airplane_mode",
        "toggle_roaming",
    }


def test_user_choice_is_checked_and_the_user_model_takes_the_policy_model_by_default(tmp_path):
    with pytest.raises(ValueError, match="harness.user='human'"):
        Tau2(compose_config(["+experiment=tau2_oracle", "harness.user=human"], tmp_path))
    default = user_model_config(compose_config(TELECOM_LLM_USER, tmp_path))
    assert (default.path, default.engine, default.temperature) == (
        "embedded:smollm2_135m",
        "transformers",
        0.0,
    )
    endpoint = [
        *TELECOM_LLM_USER,
        "harness.user_model.engine=openai",
        "harness.user_model.name=gpt-4.1",
        "harness.user_model.engine_url=http://localhost:8000/v1",
    ]
    cfg = compose_config(endpoint, tmp_path)
    served = user_model_config(cfg)
    assert (served.engine, served.engine_model, served.engine_url) == (
        "openai",
        "gpt-4.1",
        "http://localhost:8000/v1",
    )
    assert Tau2(cfg).user_simulator() == "gpt-4.1 (openai engine)"


def fake_log(domain: str, task: str, reward: float) -> EventLog:
    return EventLog(
        id=f"{domain}-{task}-{reward}", task_id=task, metadata={"domain": domain, "reward": reward}
    )


def test_pass_hat_k_matches_the_leaderboard_definition():
    # three tasks, four trials each: 4, 2 and 0 successes (a reward of 1 is a success; 0.5 is not)
    runs = {"a": [1, 1, 1, 1], "b": [1, 0, 1, 0.5], "c": [0, 0, 0, 0]}
    logs = [fake_log("airline", task, r) for task, rewards in runs.items() for r in rewards]
    metrics = pass_hat_metrics(logs)
    expected = {1: (1 + 2 / 4 + 0) / 3, 2: (1 + 1 / 6 + 0) / 3, 3: 1 / 3, 4: 1 / 3}  # mean of C(c,k)/C(n,k)
    for k, value in expected.items():
        assert math.isclose(metrics[f"pass^{k}"], value)
        assert metrics[f"pass^{k}/n"] == 3
        assert metrics[f"pass^{k}/ci_low"] <= value <= metrics[f"pass^{k}/ci_high"]
    assert "pass^5" not in metrics
    same = pass_hat_metrics([fake_log("airline", t, 1.0) for t in "xyz" for _ in range(2)])
    assert same["pass^2/ci_low"] == same["pass^2/ci_high"] == 1.0  # no spread between tasks: no interval

    submission = leaderboard_submission(logs, "SmolLM2-135M", "scripted (no LLM)", "test")
    assert submission["results"]["airline"] == {
        "pass_1": 50.0,
        "pass_2": 38.89,
        "pass_3": 33.33,
        "pass_4": 33.33,
        "cost": None,
    }
    from tau2.scripts.leaderboard.submission import Submission

    Submission.model_validate(submission)  # the installed tau2's own leaderboard model accepts it
    methodology = submission["methodology"]
    assert (
        methodology["tau2_bench_version"] == "26.3" and methodology["user_simulator"] == "scripted (no LLM)"
    )
    assert "4 trial(s) per task" in methodology["notes"] and "'base' split" in methodology["notes"]
    assert "agent actions" not in methodology["notes"]  # the fake logs name no step budget
    for log in logs:
        log.metadata["max_steps"] = 4
    notes = leaderboard_submission(logs, "SmolLM2-135M", "x", "base")["methodology"]["notes"]
    assert "episodes end after 4 agent actions (tau2's runs stop after 200 orchestrator steps)" in notes


def test_trials_repeat_each_task_and_the_evaluation_writes_pass_hat_k_and_a_submission(run_pipeline):
    overrides = [
        "+experiment=tau2_oracle",
        "benchmark=tau2_telecom",
        "benchmark.num_eval=3",
        "benchmark.trials=2",
    ]
    run_dir, summary = run_pipeline([*overrides, "harness.agent=skip_write"])
    assert summary["status"] == "completed", summary.get("error")
    metrics = summary["metrics"]
    rewards: dict[str, list[float]] = {}
    for line in (run_dir / "eventlogs" / "eval.jsonl").read_text().splitlines():
        log = json.loads(line)
        rewards.setdefault(log["task_id"], []).append(log["metadata"]["reward"])
    assert len(rewards) == 3 and all(len(r) == 2 for r in rewards.values())
    pass_1 = sum(sum(r == 1.0 for r in runs) / 2 for runs in rewards.values()) / 3
    assert math.isclose(metrics["eval/telecom/pass^1"], pass_1) and metrics["eval/telecom/pass^2/n"] == 3
    assert "eval/telecom/pass^3" not in metrics and metrics["eval/trials"] == 2
    submission = json.loads((run_dir / "submission.json").read_text())
    assert submission["model_name"] == "scripted agent: skip_write"
    assert submission["results"]["telecom"]["pass_1"] == round(100 * pass_1, 2)
    assert set(submission["results"]["telecom"]) >= {"pass_1", "pass_2"}
