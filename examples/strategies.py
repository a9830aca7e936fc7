"""A new strategy: ReAct that tells the policy, after each tool result, how many turns it has left.

A strategy subclasses :class:`agenttune.agents.strategies.ReAct` (or implements the same five methods) and takes
the fields of :class:`agenttune.config.StrategyConfig`; ``conf/strategy/budget_react.yaml`` names it in
``_target_``. The same class shapes evaluation episodes and training rollouts.
"""

from __future__ import annotations

from agenttune.agents.state import EpisodeState, TurnOutcome
from agenttune.agents.strategies import ReAct, strategy_prompt
from agenttune.events.projections.messages import Message


class BudgetReAct(ReAct):
    BUDGET = "{left} of {total} turns left: answer as soon as the results allow."

    def observe(self, state: EpisodeState, assistant: Message, outcome: TurnOutcome) -> None:
        super().observe(state, assistant, outcome)
        if not self.is_done(state) and outcome.observations:
            state.emit(
                strategy_prompt(self.BUDGET.format(left=self.max_turns - state.turn, total=self.max_turns))
            )
