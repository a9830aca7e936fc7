"""The episode loop: many episodes batched through one engine, each turned into an EventLog.

Every live episode's turns go through the engine's ``serve``: an episode's next turn goes to the engine as soon as
its last one is generated and acted on (for engines without continuous batching, turn by turn: one ``generate``
call per distinct tool set). Each generation becomes events (REASONING, TEXT, TOOL_CALL with call ids, ERROR for
parser errors); its actions go to the strategy or the harness; every observation is recorded; a TURN_COMPLETE
closes the turn with ``end_of_turn`` or, on the last turn, why the episode ended (``agent_stop``, ``harness_done``,
``max_turns``, ``error``). A harness reward becomes a REWARD event (scope ``episode`` when it ends the episode,
``turn`` for an attempt a strategy retries). A generation the engine failed to produce (``Generation.error``, e.g. an
unreachable endpoint) becomes an ERROR event (source ``engine``) and ends its episode with ``error``; each log's
metadata counts its generations (``turns``) and those failures (``engine_failures``).

Which actions run: the turn's tool calls, in order, until one ends the episode; a turn without tool calls sends
its text to the harness (an answer, or a message to a simulated user); a turn whose only calls were malformed
gets the parser errors back as an OBSERVATION (source ``parser``) and runs nothing. An exception from the
harness fails that episode (ERROR event, reason ``error``), not the batch.

With a token-exact engine (transformers, vLLM, scripted with a tokenizer) logs are full tier: ``token_ids`` are
the ids the policy conditioned on and generated (:mod:`agenttune.agents.tokens`), generated events carry spans
and logprobs, the stop token's span sits on the TURN_COMPLETE, and ``generated_spans`` lists each completion's
range (the validator checks that spans with logprobs cover them).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from typing import Any

from agenttune.agents.generated import turn_events
from agenttune.agents.state import (
    AGENT_STOP,
    END_OF_TURN,
    ERROR,
    HARNESS_DONE,
    EpisodeState,
    TurnOutcome,
)
from agenttune.agents.strategies import ReAct
from agenttune.agents.tokens import TokenTrack
from agenttune.engines.base import Engine, Generation, Request
from agenttune.events.schema import (
    ErrorPayload,
    Event,
    EventKind,
    EventLog,
    ObservationPayload,
    RewardPayload,
    TurnCompletePayload,
)
from agenttune.harness.protocol import Harness

Writer = Callable[[EventLog], None]


def task_id(task: Any, index: int) -> str:
    """A task's ``id``/``task_id`` (mapping key or attribute), else its position."""
    for key in ("id", "task_id"):
        value = task.get(key) if isinstance(task, dict) else getattr(task, key, None)
        if value is not None:
            return str(value)
    return str(index)


class Episode:
    """One episode in flight: its harness, strategy state, events and (full tier) token track."""

    def __init__(self, index: int, task: Any, harness: Harness, strategy: ReAct, tokenizer: Any, source: str):
        self.index, self.task, self.harness, self.strategy = index, task, harness, strategy
        self.tokenizer, self.source = tokenizer, source
        self.events: list[Event] = []
        self.tools: list[dict[str, Any]] = []
        self.track: TokenTrack | None = None
        self.sampled: list[tuple[int, int]] = []  # full tier: where each completion lies in the token ids
        self.state: EpisodeState | None = None
        self.finished = False
        self.engine_failures = 0  # turns the engine could not generate (0 or 1: a failure ends the episode)

    def start(self) -> None:
        try:
            opening = self.harness.reset(self.task)
            self.tools = self.strategy.tools(self.harness.tool_schemas())
        except Exception as error:  # the harness failed this episode only
            self._fail(error, step=0)
            return
        self.events += opening
        self.state = self.strategy.init(self.task, opening)
        self.events += self.state.drain()
        if self.tokenizer is not None:
            self.track = TokenTrack(self.tokenizer, self.tools)

    def propose(self) -> list[dict[str, Any]]:
        conversation = self.strategy.propose(self.state)
        self.events += self.state.drain()
        return conversation

    def finish_turn(self, generation: Generation) -> None:
        """Log the generation, run its actions, let the strategy observe, close the turn."""
        if generation.error:
            self._engine_failed(generation.error)
            return
        state, step = self.state, self.state.step
        call_ids = [f"call_{step}_{i}" for i in range(len(generation.parsed.tool_calls))]
        assistant = generation.parsed.to_message(call_ids)
        offset = self.track.append(generation, assistant) if self.track else None
        if offset is not None:
            self.sampled.append((offset, offset + len(generation.completion_ids)))
        turn = turn_events(generation, step, call_ids, offset, self.tokenizer)
        self.events += turn.generated + turn.errors
        outcome = self._act(turn.generated, turn.errors, step)
        self.events += outcome.observations
        self.strategy.observe(state, assistant, outcome)
        if state.reset_requested:
            self._restart()
        self.finished = self.strategy.is_done(state)
        if outcome.reward is not None:
            scope = "episode" if self.finished else "turn"
            reward = RewardPayload(scope=scope, name="harness", value=outcome.reward, info=outcome.info)
            self.events.append(Event(payload=reward, actor="env", step=step))
        self.events += state.drain()
        reason = (state.termination or END_OF_TURN) if self.finished else END_OF_TURN
        self.events.append(
            Event(
                payload=TurnCompletePayload(reason=reason),
                step=step,
                span=turn.stop_span,
                logprobs=turn.stop_logprobs,
            )
        )
        state.step += 1

    def _act(self, generated: list[Event], errors: list[Event], step: int) -> TurnOutcome:
        calls = [e for e in generated if e.kind == EventKind.TOOL_CALL]
        if errors and not calls:
            feedback = "; ".join(e.payload.message for e in errors)
            text = f"Your tool call could not be parsed ({feedback}). Use <tool_call>{{json}}</tool_call>."
            return TurnOutcome(
                [Event(payload=ObservationPayload(content=text, source="parser"), actor="system", step=step)]
            )
        actions = calls or [e for e in generated if e.kind == EventKind.TEXT][-1:]
        outcome = TurnOutcome()
        for action in actions:
            try:
                result = self.strategy.handle(self.state, action) or self.harness.step(action)
            except Exception as error:  # the harness failed this episode only
                outcome.observations += self.state.drain()
                outcome.observations.append(_error_event(error, step))
                outcome.reason = ERROR
                return outcome
            outcome.observations += self.state.drain() + result.observations
            if result.reward is not None:
                outcome.reward, outcome.info = result.reward, result.info
            if result.done:
                outcome.done = True
                outcome.reason = AGENT_STOP if action.kind == EventKind.TEXT else HARNESS_DONE
                return outcome
        if not calls and not outcome.observations:
            outcome.reason = AGENT_STOP  # an answer nobody replied to
        return outcome

    def _restart(self) -> None:
        try:
            opening = self.harness.reset(self.task)
        except Exception as error:
            self.events.append(_error_event(error, self.state.step))
            self.state.termination = ERROR
            return
        self.strategy.restart(self.state, opening)

    def _engine_failed(self, message: str) -> None:
        """The engine generated nothing for this turn: an ERROR event (source ``engine``) ends the episode."""
        step = self.state.step
        self.engine_failures += 1
        self.events += [
            Event(payload=ErrorPayload(source="engine", message=message), actor="system", step=step),
            Event(payload=TurnCompletePayload(reason=ERROR), actor="system", step=step),
        ]
        self.state.termination = ERROR
        self.state.step += 1
        self.finished = True

    def _fail(self, error: Exception, step: int) -> None:
        self.events.append(_error_event(error, step))
        self.events.append(Event(payload=TurnCompletePayload(reason=ERROR), actor="system", step=step))
        self.finished = True

    def log(self, engine: Engine) -> EventLog:
        full = self.track is not None and self.state is not None
        termination = self.state.termination if self.state is not None else ERROR
        return EventLog(
            id=f"{self.source or 'episode'}-{task_id(self.task, self.index)}-{uuid.uuid4().hex[:8]}",
            tier="full" if full else "light",
            source=self.source,
            task_id=task_id(self.task, self.index),
            tools=self.tools,
            events=self.events,
            token_ids=list(self.track.ids) if full else None,
            generated_spans=self.sampled if full else None,
            metadata={
                "strategy": self.strategy.name,
                "engine": type(engine).__name__,
                "termination": termination,
                "turns": self.state.step if self.state is not None else 0,
                "engine_failures": self.engine_failures,
            },
        )


def _error_event(error: Exception, step: int) -> Event:
    message = f"{type(error).__name__}: {error}"
    return Event(payload=ErrorPayload(source="harness", message=message), actor="env", step=step)


def run_episodes(
    engine: Engine,
    harnesses: Callable[[], Harness] | Sequence[Harness],
    strategy: ReAct,
    tasks: Sequence[Any],
    tokenizer: Any = None,
    *,
    writer: Writer | None = None,
    record: Callable[[EventLog, Harness], EventLog] | None = None,
    source: str = "",
    full: bool | None = None,
) -> list[EventLog]:
    """Run one episode per task, all batched through ``engine.serve``; return their logs in task order.

    ``harnesses`` is a factory called once per task or one harness per task. ``tokenizer`` defaults to the
    engine's; logs are full tier when the engine is token-exact (``full=None``), or as ``full`` demands.
    The moment an episode finishes, ``record(log, harness)`` completes its log (what a benchmark adds) and
    ``writer`` receives it (an :class:`~agenttune.events.io.EventLogWriter`'s ``write`` makes it durable), so a
    crash later in the batch loses no finished episode.
    """
    if callable(harnesses):
        harnesses = [harnesses() for _ in tasks]
    if len(harnesses) != len(tasks):
        raise ValueError(f"{len(harnesses)} harnesses for {len(tasks)} tasks")
    tokenizer = tokenizer if tokenizer is not None else engine.tokenizer
    exact = engine.token_exact and tokenizer is not None
    if full and not exact:
        raise ValueError(
            f"full logs need a token-exact engine with a tokenizer; {type(engine).__name__} is not"
        )
    full = exact if full is None else full
    episodes = [
        Episode(i, task, harness, strategy, tokenizer if full else None, source)
        for i, (task, harness) in enumerate(zip(tasks, harnesses, strict=True))
    ]
    logs: dict[int, EventLog] = {}

    def close(episode: Episode) -> None:
        logs[episode.index] = episode.log(engine)
        if record is not None:
            logs[episode.index] = record(logs[episode.index], episode.harness)
        if writer is not None:
            writer(logs[episode.index])

    for episode in episodes:
        episode.start()
        if episode.finished:
            close(episode)
    live = [e for e in episodes if not e.finished]

    def request(episode: Episode) -> Request:
        conversation = episode.propose()
        prompt_ids = episode.track.prompt(conversation) if full else None
        return Request(conversation, episode.tools or None, prompt_ids)

    def follow_up(index: int, generation: Generation) -> Request | None:
        episode = live[index]
        episode.finish_turn(generation)
        if episode.finished:
            close(episode)
            return None
        return request(episode)

    engine.serve([request(e) for e in live], follow_up)
    return [logs[i] for i in range(len(episodes))]
