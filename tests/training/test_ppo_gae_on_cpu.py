"""PPO pieces: GAE skips tool-result tokens (the rollouts' masks are tested in test_rollouts_on_cpu.py)."""

from __future__ import annotations

import torch

from agenttune.training.ppo.gae import masked_gae, whiten


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
