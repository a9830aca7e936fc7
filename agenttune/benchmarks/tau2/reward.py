"""Episode reward from tau2's own evaluators, combined by the task's ``reward_basis`` as tau2 does.

tau2's ``evaluate_simulation`` imports litellm (through its registry), so it cannot be imported here; this
module calls the three evaluators it calls (environment: DB hash and env assertions; actions;
communicate) and combines them the same way: a premature termination scores 0, a task without
evaluation criteria scores 1, otherwise the product of the evaluators whose basis the task lists.
NL assertions (the one check that needs an LLM judge) are not in the reward basis of any airline, retail
or telecom task; a task that lists them raises instead of being scored wrongly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agenttune.benchmarks.tau2.domains import make_environment

if TYPE_CHECKING:
    from tau2.data_model.message import Message
    from tau2.data_model.tasks import Task

SCORED_TERMINATIONS = frozenset({"agent_stop", "user_stop"})


def evaluate_episode(domain: str, task: Task, messages: list[Message], termination: str) -> dict[str, Any]:
    """tau2's reward info for an episode, as a JSON-serialisable dict (``reward`` is the total).

    Args:
        domain: the tau2 domain the task belongs to.
        task: the task that was run.
        messages: the whole tau2 trajectory, the task's initial message history included.
        termination: why the episode ended (user_stop, agent_stop, max_steps, error).
    """
    from tau2.data_model.simulation import RewardInfo
    from tau2.data_model.tasks import RewardType
    from tau2.evaluator.evaluator_action import ActionEvaluator
    from tau2.evaluator.evaluator_communicate import CommunicateEvaluator
    from tau2.evaluator.evaluator_env import EnvironmentEvaluator

    if termination not in SCORED_TERMINATIONS:
        info = RewardInfo(
            reward=0.0,
            reward_basis=None,
            info={"note": f"Simulation terminated prematurely. Termination reason: {termination}"},
        )
        return info.model_dump(mode="json")
    criteria = task.evaluation_criteria
    if criteria is None:
        return RewardInfo(reward=1.0, reward_basis=None, info={"note": "No evaluation criteria"}).model_dump(
            mode="json"
        )
    basis = set(criteria.reward_basis)
    if RewardType.NL_ASSERTION in basis:
        raise ValueError(f"task {task.id} is scored by NL assertions, which need an LLM judge")

    def constructor(solo_mode: bool = False):
        return make_environment(domain, solo_mode=solo_mode)

    env_info = EnvironmentEvaluator.calculate_reward(
        environment_constructor=constructor, task=task, full_trajectory=messages
    )
    action_info = ActionEvaluator.calculate_reward(task=task, full_trajectory=messages)
    communicate_info = CommunicateEvaluator.calculate_reward(task=task, full_trajectory=messages)

    reward = 1.0
    breakdown: dict[Any, float] = {}
    for part, bases in (
        (env_info, {RewardType.DB, RewardType.ENV_ASSERTION}),
        (action_info, {RewardType.ACTION}),
        (communicate_info, {RewardType.COMMUNICATE}),
    ):
        if basis & bases:
            breakdown.update(part.reward_breakdown or {})
            reward *= part.reward
    combined = RewardInfo(
        reward=reward,
        db_check=env_info.db_check,
        env_assertions=env_info.env_assertions,
        action_checks=action_info.action_checks,
        communicate_checks=communicate_info.communicate_checks,
        reward_basis=criteria.reward_basis,
        reward_breakdown=breakdown,
        info={"env": env_info.info, "communicate": communicate_info.info, "action": action_info.info},
    )
    return combined.model_dump(mode="json")
