"""The unpaired BCO loss as a KTOTrainer subclass (TRL 1.16 has no BCOTrainer; see :mod:`agenttune.training.bco`).

It reuses KTO's unpaired format (``prompt``/``completion``/``label``), tokenisation and collator, and overrides the
documented ``compute_loss``. The implicit reward ``r = beta * (log pi(y|x) - log pi_ref(y|x))`` is a logit of a
binary classifier: good samples are pushed to ``r > delta``, bad ones to ``r < delta``, with ``delta`` the running
mean of all rewards seen so far:

    loss = -log sigmoid(r_good - delta) - log sigmoid(-(r_bad - delta))

The paper's optional density-ratio (UDM) weighting, which needs a separate embedding classifier, is left out.
``delta`` restarts from the current batch when a run resumes.
"""

from __future__ import annotations

from collections import defaultdict

import torch
import torch.nn.functional as F
from trl import KTOTrainer


class BCOUnpairedTrainer(KTOTrainer):
    """KTOTrainer whose loss is the unpaired BCO loss (see the module docstring)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.reward_sum = 0.0
        self.reward_count = 0
        self.bco_metrics: dict[str, list[float]] = defaultdict(list)

    def completion_logps(self, model, inputs: dict[str, torch.Tensor]) -> torch.Tensor:
        """Summed log-probabilities of each row's completion tokens under ``model``."""
        labels = inputs["input_ids"].masked_fill(inputs["completion_mask"] == 0, -100)
        outputs = model(
            input_ids=inputs["input_ids"],
            attention_mask=inputs["attention_mask"],
            labels=labels,
            fused_lm_head=True,  # per-token log-probs without full logits (KTOTrainer adds the head)
            use_cache=False,
        )
        return outputs.log_probs[:, -(labels.size(1) - 1) :].sum(-1)

    def reference_logps(self, inputs: dict[str, torch.Tensor]) -> torch.Tensor:
        """Completion log-probabilities under the reference model (the base model without adapters under PEFT)."""
        with torch.no_grad():
            if self.ref_model is not None:
                return self.completion_logps(self.ref_model, inputs)
            with self.accelerator.unwrap_model(self.model).disable_adapter():
                return self.completion_logps(self.model, inputs)

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        rewards = self.beta * (self.completion_logps(model, inputs) - self.reference_logps(inputs))
        good = torch.as_tensor(inputs["label"], dtype=torch.bool, device=rewards.device)
        self.reward_sum += rewards.detach().sum().item()
        self.reward_count += rewards.numel()
        delta = self.reward_sum / self.reward_count
        margins = torch.where(good, rewards - delta, delta - rewards)
        loss = -F.logsigmoid(margins).mean()
        self.bco_metrics["bco/delta"].append(delta)
        if good.any():
            self.bco_metrics["rewards/chosen"].append(rewards[good].mean().item())
        if (~good).any():
            self.bco_metrics["rewards/rejected"].append(rewards[~good].mean().item())
        return (loss, {"rewards": rewards}) if return_outputs else loss

    def log(self, logs: dict[str, float], start_time: float | None = None) -> None:
        logs.update({name: sum(values) / len(values) for name, values in self.bco_metrics.items()})
        self.bco_metrics.clear()
        super().log(logs, start_time)
