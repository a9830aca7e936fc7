"""The critic: a linear value head on the policy's last hidden state (TRL 1.16 has no value-head model class)."""

from __future__ import annotations

import torch
from torch import nn


class ValueHead(nn.Module):
    """Map each position's last hidden state to a scalar value estimate."""

    def __init__(self, hidden_size: int):
        super().__init__()
        self.linear = nn.Linear(hidden_size, 1)

    def forward(self, hidden_states: torch.Tensor) -> torch.Tensor:
        return self.linear(hidden_states).squeeze(-1)
