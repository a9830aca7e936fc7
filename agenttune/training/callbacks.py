"""Forwarding trainer logs to the project's tracker."""

from __future__ import annotations

from collections.abc import Callable

from transformers import TrainerCallback

LogFn = Callable[[dict[str, float], int], None]


class MetricsCallback(TrainerCallback):
    """Send every log dict a trainer emits to ``log_fn(metrics, step)``, with the trainer's global step.

    Used by all TRL-based trainers; the PPO loop calls ``log_fn`` directly with the same signature. A run resumed
    at its last step trains none, and the Trainer's closing ``train_loss`` is then 0.0 over no step: it is left out.
    """

    def __init__(self, log_fn: LogFn):
        self.log_fn = log_fn
        self.first_step = 0

    def on_train_begin(self, args, state, control, **kwargs):
        self.first_step = state.global_step  # a resumed run's state is loaded by now

    def on_log(self, args, state, control, logs=None, **kwargs):
        logs = dict(logs or {})
        if "train_runtime" in logs and state.global_step == self.first_step:
            logs.pop("train_loss", None)
        if logs:
            self.log_fn(logs, state.global_step)
