"""Sampling multi-turn completions from the policy, with tool calls run between turns.

Each completion is a list of token ids plus a mask that is 1 where the policy wrote the token and 0 where a
tool result (rendered by the chat template) was spliced in. Tools come from ``tools`` and from the public methods
of one environment per completion (``environment_factory``; ``reset(**row)`` may return text appended to the
last user message), the same contract as TRL's GRPOTrainer.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch
from trl.chat_template_utils import add_response_schema, parse_response

ENVIRONMENT_HOOKS = ("reset", "get_reward")


@dataclass
class Episode:
    """One completion in progress: its context, what the policy wrote and what tools answered."""

    row: dict[str, Any]
    prompt: list[dict[str, Any]]
    prompt_ids: list[int]
    tools: dict[str, Callable]
    environment: Any = None
    completion_ids: list[int] = field(default_factory=list)
    model_mask: list[int] = field(default_factory=list)
    messages: list[dict[str, Any]] = field(default_factory=list)
    tool_calls: int = 0
    done: bool = False


def environment_tools(environment: Any) -> list[Callable]:
    """The public methods of an environment, other than ``reset`` and ``get_reward``, bound to it."""
    return [
        getattr(environment, name)
        for name, _ in inspect.getmembers(type(environment), predicate=inspect.isfunction)
        if not name.startswith("_") and name not in ENVIRONMENT_HOOKS
    ]


def run_tool(tools: dict[str, Callable], call: dict[str, Any]) -> dict[str, str]:
    """Run one parsed tool call; errors become the tool message, so the policy sees them."""
    name = call["function"]["name"]
    try:
        result = tools[name](**call["function"].get("arguments", {}))
    except Exception as error:  # a bad call is the policy's mistake, reported back to it
        result = f"Error: {type(error).__name__}: {error}"
    return {"role": "tool", "name": name, "content": str(result)}


class Rollout:
    """Generate ``num_generations`` multi-turn completions for each dataset row with ``model``."""

    def __init__(
        self,
        model,
        tokenizer,
        max_completion_length: int,
        tools: list[Callable] | None = None,
        environment_factory: Callable[[], Any] | None = None,
    ):
        self.model = model
        self.tokenizer = add_response_schema(tokenizer)
        self.max_completion_length = max_completion_length
        self.tools = list(tools or [])
        self.environment_factory = environment_factory

    def start(self, row: dict[str, Any]) -> Episode:
        environment = self.environment_factory() if self.environment_factory else None
        tools = self.tools + (environment_tools(environment) if environment else [])
        prompt = copy.deepcopy(row["prompt"])
        if environment is not None:
            observation = environment.reset(**row)
            if isinstance(observation, str):
                prompt[-1]["content"] += observation
        prompt_ids = self.tokenizer.apply_chat_template(
            prompt, tools=tools or None, add_generation_prompt=True, tokenize=True, return_dict=False
        )
        return Episode(row, prompt, prompt_ids, {tool.__name__: tool for tool in tools}, environment)

    def tool_result_ids(self, tool_messages: list[dict[str, str]]) -> list[int]:
        """Tokens the chat template puts between an assistant turn's end and the next assistant turn."""
        call = {"type": "function", "function": {"name": tool_messages[0]["name"], "arguments": {}}}
        before = [
            {"role": "user", "content": "."},
            {"role": "assistant", "content": "", "tool_calls": [call]},
        ]
        render = self.tokenizer.apply_chat_template
        head = render(before, tokenize=True, return_dict=False)
        full = render(before + tool_messages, add_generation_prompt=True, tokenize=True, return_dict=False)
        end_of_turn = max(i for i, token in enumerate(head) if token == self.tokenizer.eos_token_id)
        if full[: end_of_turn + 1] != head[: end_of_turn + 1]:
            raise ValueError(
                "the chat template does not keep earlier turns as a prefix; tool results can't be spliced"
            )
        return full[end_of_turn + 1 :]

    @torch.no_grad()
    def generate(self, contexts: list[list[int]], max_new_tokens: int) -> list[list[int]]:
        """Sample one continuation per context (left-padded batch), each cut after its first end-of-turn token."""
        eos, pad = self.tokenizer.eos_token_id, self.tokenizer.pad_token_id
        width = max(len(ids) for ids in contexts)
        input_ids = torch.tensor([[pad] * (width - len(ids)) + ids for ids in contexts])
        attention_mask = torch.tensor([[0] * (width - len(ids)) + [1] * len(ids) for ids in contexts])
        device = next(self.model.parameters()).device
        output = self.model.generate(
            input_ids=input_ids.to(device),
            attention_mask=attention_mask.to(device),
            max_new_tokens=max_new_tokens,
            do_sample=True,
            eos_token_id=eos,
            pad_token_id=pad,
        )
        continuations = []
        for ids in output[:, width:].tolist():
            continuations.append(ids[: ids.index(eos) + 1] if eos in ids else ids)
        return continuations

    def step(self, episodes: list[Episode]) -> None:
        """One assistant turn for every unfinished episode, then its tool calls."""
        active = [episode for episode in episodes if not episode.done]
        budget = max(self.max_completion_length - len(episode.completion_ids) for episode in active)
        contexts = [episode.prompt_ids + episode.completion_ids for episode in active]
        for episode, context, new_ids in zip(active, contexts, self.generate(contexts, budget), strict=True):
            new_ids = new_ids[: self.max_completion_length - len(episode.completion_ids)]
            episode.completion_ids += new_ids
            episode.model_mask += [1] * len(new_ids)
            message = parse_response(
                self.tokenizer, new_ids, prefix=context, tools=list(episode.tools.values())
            )
            episode.messages.append(message)
            calls = message.get("tool_calls") or []
            remaining = self.max_completion_length - len(episode.completion_ids)
            if not calls or remaining <= 0:
                episode.done = True
                continue
            episode.tool_calls += len(calls)
            tool_messages = [run_tool(episode.tools, call) for call in calls]
            episode.messages += tool_messages
            result_ids = self.tool_result_ids(tool_messages)[:remaining]
            episode.completion_ids += result_ids
            episode.model_mask += [0] * len(result_ids)
            episode.done = len(result_ids) == remaining

    def __call__(self, rows: list[dict[str, Any]], num_generations: int) -> list[Episode]:
        """Episodes for each row repeated ``num_generations`` times, run until no tool call is left or budget is."""
        episodes = [self.start(row) for row in rows for _ in range(num_generations)]
        self.model.eval()
        while not all(episode.done for episode in episodes):
            self.step(episodes)
        return episodes
