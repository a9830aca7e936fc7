"""Forwarding trainer logs to the project's tracker."""

from __future__ import annotations

from collections.abc import Callable

from transformers import TrainerCallback

LogFn = Callable[[dict[str, float], int], None]


class MetricsCallback(TrainerCallback):
    """Send every log dict a trainer emits to ``log_fn(metrics, step)``, with the trainer's global step.

    Used by all TRL-based trainers; the PPO loop calls ``log_fn`` directly with the same signature.
    """

    def __init__(self, log_fn: LogFn):
        self.log_fn = log_fn

    def on_log(self, args, state, control, logs=None, **kwargs):
        if logs:
            self.log_fn(dict(logs), state.global_step)
