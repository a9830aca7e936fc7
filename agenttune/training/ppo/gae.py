"""Generalised advantage estimation over the policy's own tokens.

Tool-result tokens sit inside a completion but were not chosen by the policy: they get no advantage, and the
recursion steps over them, so the value after a tool call's last token is the value at the first token the
policy writes after the tool result.
"""

from __future__ import annotations

import torch


def masked_gae(
    rewards: torch.Tensor, values: torch.Tensor, mask: torch.Tensor, gamma: float, lam: float
) -> tuple[torch.Tensor, torch.Tensor]:
    """Advantages and returns, both zero where ``mask`` is 0.

    Args:
        rewards: per-token rewards, shape (batch, tokens).
        values: value estimates at the same positions.
        mask: 1 at tokens the policy generated, 0 at padding, prompt and tool-result tokens.
        gamma: discount factor.
        lam: GAE lambda.

    >>> rewards = torch.tensor([[0.0, 0.0, 1.0]])
    >>> advantages, _ = masked_gae(rewards, torch.zeros(1, 3), torch.tensor([[1, 0, 1]]), 1.0, 1.0)
    >>> advantages.tolist()
    [[1.0, 0.0, 1.0]]
    """
    mask = mask.bool()
    advantages = torch.zeros_like(rewards)
    next_value = torch.zeros_like(rewards[:, 0])
    next_advantage = torch.zeros_like(rewards[:, 0])
    for t in reversed(range(rewards.size(1))):
        delta = rewards[:, t] + gamma * next_value - values[:, t]
        advantage = delta + gamma * lam * next_advantage
        is_model_token = mask[:, t]
        advantages[:, t] = torch.where(is_model_token, advantage, 0.0)
        next_value = torch.where(is_model_token, values[:, t], next_value)
        next_advantage = torch.where(is_model_token, advantage, next_advantage)
    returns = (advantages + values) * mask
    return advantages, returns


def whiten(values: torch.Tensor, mask: torch.Tensor, eps: float = 1e-8) -> torch.Tensor:
    """Normalise ``values`` to zero mean and unit variance over the positions where ``mask`` is 1."""
    mask = mask.float()
    mean = (values * mask).sum() / mask.sum()
    variance = (((values - mean) * mask) ** 2).sum() / mask.sum()
    return (values - mean) * torch.rsqrt(variance + eps) * mask
