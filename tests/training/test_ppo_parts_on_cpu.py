"""PPO pieces: GAE skips tool-result tokens, and the rollout masks tool results out of the policy's tokens."""

from __future__ import annotations

import json

import torch
from test_algorithms_on_cpu import LookupEnv

from agenttune.training.ppo.gae import masked_gae, whiten
from agenttune.training.ppo.rollout import Rollout


def test_gae_steps_over_masked_tokens_on_cpu():
    rewards = torch.tensor([[0.0, 0.0, 0.0, 1.0]])
    values = torch.tensor([[0.5, 9.0, 9.0, 0.25]])
    mask = torch.tensor([[1, 0, 0, 1]])
    advantages, returns = masked_gae(rewards, values, mask, gamma=1.0, lam=1.0)
    # the last token: 1 - 0.25; the first token bootstraps from the last token's value, not the masked 9.0
    assert advantages.tolist() == [[0.75 + (0.25 - 0.5), 0.0, 0.0, 0.75]]
    assert returns[0, 1:3].tolist() == [0.0, 0.0]
    whitened = whiten(advantages, mask)
    assert whitened[0, 1:3].tolist() == [0.0, 0.0]
    assert abs(whitened[mask.bool()].mean().item()) < 1e-6


class ScriptedRollout(Rollout):
    """A rollout whose 'policy' first calls the lookup tool, then answers (no model needed)."""

    def generate(self, contexts, max_new_tokens):
        call = {"name": "lookup", "arguments": {"key": "capital"}}
        first_turn = f"<tool_call>\n{json.dumps(call)}\n</tool_call><|im_end|>"
        text = (
            first_turn if "<tool_response>" not in self.tokenizer.decode(contexts[0]) else "Paris.<|im_end|>"
        )
        return [self.tokenizer(text)["input_ids"][:max_new_tokens] for _ in contexts]


def test_rollout_masks_tool_results_on_cpu(tokenizer):
    policy = torch.nn.Identity()  # the scripted rollout only puts it in eval mode
    rollout = ScriptedRollout(policy, tokenizer, max_completion_length=200, environment_factory=LookupEnv)
    (episode,) = rollout([{"prompt": [{"role": "user", "content": "Capital of France?"}]}], num_generations=1)
    assert episode.environment.calls == 1 and episode.tool_calls == 1
    assert [message["role"] for message in episode.messages] == ["assistant", "tool", "assistant"]
    assert episode.messages[1]["content"] == "Paris" and episode.messages[2]["content"] == "Paris."
    mask = episode.model_mask
    tool_tokens = [token for token, m in zip(episode.completion_ids, mask, strict=True) if m == 0]
    assert "<tool_response>\nParis\n</tool_response>" in tokenizer.decode(tool_tokens)
    assert mask[0] == 1 and mask[-1] == 1 and 0 in mask
