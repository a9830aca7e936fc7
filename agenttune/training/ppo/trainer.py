"""PPO written as a readable loop in the project (TRL 1.16 has no PPOTrainer).

One training step:

1. take ``per_device_batch_size * gradient_accumulation_steps`` training tasks and run ``num_generations``
   episodes of each through the project's episode loop with the policy
   (:class:`~agenttune.training.rollouts.EpisodeRollouts`: the configured engine, so ``model.temperature``,
   ``model.top_p`` and ``model.max_new_tokens`` apply, and the ``strategy`` group), each scored by the ``reward``
   group from its EventLog and written to ``eventlogs/train/step-<N>.jsonl``;
2. the episode's ``total`` reward is its score;
3. under no grad: the rollout policy's token log-probs and values, and, when ``beta > 0``, the reference
   policy's log-probs; per-token reward = ``-beta * (logp - ref_logp)`` plus the score on the last policy token;
4. advantages and returns by GAE over policy tokens only (tool results are masked out), advantages whitened;
5. ``ppo_epochs`` passes over shuffled minibatches of ``per_device_batch_size * num_generations`` completions,
   one optimizer step each: clipped policy loss + ``vf_coef`` * clipped value loss, masked to policy tokens.

The learning rate is constant (``warmup_ratio`` is not used). Every ``save_steps`` steps, ``checkpoint-<step>/``
holds the policy (``save_pretrained``), the tokenizer and ``ppo_state.pt`` (value head, optimizer, step, RNG);
only the newest ``save_total_limit`` are kept. ``train(resume_from_checkpoint=folder)`` restores them and
continues at that step.
"""

from __future__ import annotations

import copy
import logging
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path

import torch
from tqdm.auto import tqdm

from agenttune.training.arguments import mixed_bf16, on_gpu
from agenttune.training.callbacks import MetricsCallback
from agenttune.training.checkpoints import PPO_STATE, rotate_checkpoints, staging
from agenttune.training.ppo.gae import masked_gae, whiten
from agenttune.training.ppo.value_head import ValueHead
from agenttune.training.rollouts import RolloutBatch, episode_metrics
from agenttune.training.spec import TrainerSpec

log = logging.getLogger(__name__)


@dataclass
class PPOState:
    """Progress of a PPO run (named like transformers' TrainerState so callers read ``state.global_step``)."""

    global_step: int = 0


@dataclass
class Batch:
    """Rollouts as padded tensors; per-token tensors are aligned with ``input_ids[:, 1:]`` (the predicted tokens)."""

    input_ids: torch.Tensor
    attention_mask: torch.Tensor
    policy_mask: torch.Tensor
    old_logps: torch.Tensor | None = None
    old_values: torch.Tensor | None = None
    advantages: torch.Tensor | None = None
    returns: torch.Tensor | None = None

    def select(self, index: torch.Tensor) -> Batch:
        return Batch(*(None if value is None else value[index] for value in vars(self).values()))


def masked_mean(values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return (values * mask).sum() / mask.sum().clamp(min=1)


def pad_rollouts(rollouts: RolloutBatch, pad_id: int) -> Batch:
    """Right-padded prompt + completion ids, with a mask of the policy's own completion tokens."""
    pairs = zip(rollouts.prompt_ids, rollouts.completion_ids, strict=True)
    sequences = [prompt + completion for prompt, completion in pairs]
    masks = [
        [0] * len(prompt) + mask for prompt, mask in zip(rollouts.prompt_ids, rollouts.env_mask, strict=True)
    ]
    width = max(len(ids) for ids in sequences)
    input_ids = torch.tensor([ids + [pad_id] * (width - len(ids)) for ids in sequences])
    attention_mask = torch.tensor([[1] * len(ids) + [0] * (width - len(ids)) for ids in sequences])
    policy_mask = torch.tensor([mask + [0] * (width - len(mask)) for mask in masks])
    return Batch(input_ids, attention_mask, policy_mask[:, 1:].float())


class PPOTrainer:
    """Proximal policy optimisation with a learned value head, for multi-turn tool-using policies."""

    def __init__(self, spec: TrainerSpec):
        if spec.algorithm.trl:
            raise ValueError(
                f"algorithm.trl={dict(spec.algorithm.trl)}: ppo is the project's own loop, with no TRL config to "
                "pass options to; it reads only the fields of PPOAlgorithmConfig"
            )
        self.args = spec.algorithm
        self.output_dir = spec.output_dir
        self.tokenizer = spec.tokenizer
        if spec.rollouts is None or spec.reward_funcs:
            raise ValueError(
                "ppo samples episodes through the episode loop: pass rollouts (and no reward_funcs)"
            )
        self.rollouts = spec.rollouts
        self.dataset = spec.rollouts.dataset()
        unsupported = [
            type(callback).__name__
            for callback in spec.callbacks
            if not isinstance(callback, MetricsCallback)
        ]
        if unsupported:
            raise ValueError(f"the PPO loop only forwards logs to MetricsCallback; got {unsupported}")
        self.log_fns = [callback.log_fn for callback in spec.callbacks]
        self.device = torch.device("cuda" if on_gpu() else "cpu")
        torch.manual_seed(self.args.seed)
        model = spec.model
        if spec.peft_config is not None:
            from peft import get_peft_model

            model = get_peft_model(model, spec.peft_config)
        quantized = getattr(model, "hf_quantizer", None) is not None  # placed on the GPU when loaded
        self.model = model if quantized else model.to(self.device)
        self.ref_model = self.reference(spec.ref_model)
        self.value_head = ValueHead(model.config.get_text_config().hidden_size).to(self.device)
        parameters = [p for p in self.model.parameters() if p.requires_grad] + list(
            self.value_head.parameters()
        )
        self.optimizer = torch.optim.AdamW(parameters, lr=self.args.learning_rate)
        self.state = PPOState()
        bf16 = mixed_bf16(self.args)
        self.autocast = (lambda: torch.autocast(self.device.type, torch.bfloat16)) if bf16 else nullcontext

    def reference(self, ref_model):
        """The frozen reference policy for the KL penalty: None when ``beta == 0`` or under PEFT (adapters off)."""
        if self.args.beta == 0 or (ref_model is None and hasattr(self.model, "disable_adapter")):
            return None
        reference = ref_model if ref_model is not None else copy.deepcopy(self.model)
        return reference.to(self.device).eval().requires_grad_(False)

    # -- one step -------------------------------------------------------------------------------------------

    def prompt_rows(self, step: int) -> list[dict]:
        """The prompts of ``step``: a fixed shuffled order of the dataset (seeded), so a resumed run continues it."""
        count = self.args.per_device_batch_size * self.args.gradient_accumulation_steps
        epoch_length = len(self.dataset)
        rows = []
        for position in range(step * count, (step + 1) * count):
            epoch, index = divmod(position, epoch_length)
            order = torch.randperm(
                epoch_length, generator=torch.Generator().manual_seed(self.args.seed + epoch)
            )
            rows.append(self.dataset[int(order[index])])
        return rows

    def forward(self, model, batch: Batch, with_values: bool) -> tuple[torch.Tensor, torch.Tensor | None]:
        """Log-probs of each next token and, when asked, the value of each position (both ``[B, T-1]``)."""
        with self.autocast():
            output = model(
                input_ids=batch.input_ids,
                attention_mask=batch.attention_mask,
                output_hidden_states=with_values,
            )
        logits = output.logits[:, :-1].float()
        logps = logits.log_softmax(-1).gather(-1, batch.input_ids[:, 1:, None]).squeeze(-1)
        values = self.value_head(output.hidden_states[-1][:, :-1].float()) if with_values else None
        return logps, values

    @torch.no_grad()
    def prepare(self, batch: Batch, scores: torch.Tensor) -> float:
        """Fill in old log-probs, values, advantages and returns; return the mean KL to the reference."""
        self.model.eval()
        batch.old_logps, batch.old_values = self.forward(self.model, batch, with_values=True)
        mask = batch.policy_mask
        token_rewards = torch.zeros_like(batch.old_logps)
        kl = torch.zeros(())
        if self.args.beta > 0:
            if self.ref_model is None:
                with self.model.disable_adapter():
                    ref_logps, _ = self.forward(self.model, batch, with_values=False)
            else:
                ref_logps, _ = self.forward(self.ref_model, batch, with_values=False)
            token_kl = (batch.old_logps - ref_logps) * mask
            token_rewards -= self.args.beta * token_kl
            kl = token_kl.sum(-1).mean()
        last_policy_token = (mask * torch.arange(mask.size(1), device=mask.device)).argmax(-1)
        token_rewards[torch.arange(mask.size(0)), last_policy_token] += scores.to(self.device)
        batch.advantages, batch.returns = masked_gae(
            token_rewards, batch.old_values, mask, self.args.gamma, self.args.gae_lambda
        )
        batch.advantages = whiten(batch.advantages, mask)
        return kl.item()

    def update(self, batch: Batch) -> dict[str, float]:
        """Clipped policy and value losses on one minibatch, one optimizer step."""
        self.model.train()
        mask, eps = batch.policy_mask, self.args.epsilon
        logps, values = self.forward(self.model, batch, with_values=True)
        ratio = torch.exp(logps - batch.old_logps)
        policy_losses = torch.max(
            -batch.advantages * ratio, -batch.advantages * ratio.clamp(1 - eps, 1 + eps)
        )
        clipped_values = batch.old_values + (values - batch.old_values).clamp(-eps, eps)
        value_losses = 0.5 * torch.max((values - batch.returns) ** 2, (clipped_values - batch.returns) ** 2)
        policy_loss, value_loss = masked_mean(policy_losses, mask), masked_mean(value_losses, mask)
        loss = policy_loss + self.args.vf_coef * value_loss
        self.optimizer.zero_grad()
        loss.backward()
        grad_norm = torch.nn.utils.clip_grad_norm_(self.optimizer.param_groups[0]["params"], 1.0)
        self.optimizer.step()
        log_ratio = (logps - batch.old_logps).detach()
        return {
            "loss": loss.item(),
            "policy_loss": policy_loss.item(),
            "value_loss": value_loss.item(),
            "approx_kl": masked_mean(torch.exp(log_ratio) - 1 - log_ratio, mask).item(),
            "clip_fraction": masked_mean(((ratio - 1).abs() > eps).float(), mask).item(),
            "grad_norm": grad_norm.item(),
        }

    def training_step(self) -> dict[str, float]:
        step = self.state.global_step
        prompts = [row["prompt"] for row in self.prompt_rows(step) for _ in range(self.args.num_generations)]
        rollouts = self.rollouts.sample(prompts, self.model, step)
        scores = torch.tensor(rollouts.rewards, dtype=torch.float)
        batch = pad_rollouts(rollouts, self.tokenizer.pad_token_id)
        batch = Batch(*(None if v is None else v.to(self.device) for v in vars(batch).values()))
        kl = self.prepare(batch, scores)
        minibatch = self.args.per_device_batch_size * self.args.num_generations
        updates = []
        for _ in range(self.args.ppo_epochs):
            order = torch.randperm(len(scores), device=self.device)
            updates += [
                self.update(batch.select(order[i : i + minibatch])) for i in range(0, len(order), minibatch)
            ]
        metrics = {name: sum(update[name] for update in updates) / len(updates) for name in updates[0]}
        return {
            **metrics,
            "kl": kl,
            "reward": scores.mean().item(),
            "reward_std": scores.std().item() if len(scores) > 1 else 0.0,
            **episode_metrics(rollouts.logs),
            "completion_length": batch.policy_mask.sum(-1).mean().item(),
            "learning_rate": self.args.learning_rate,
        }

    # -- loop, checkpoints ----------------------------------------------------------------------------------

    def train(self, resume_from_checkpoint: str | None = None) -> PPOState:
        if resume_from_checkpoint:
            self.load(resume_from_checkpoint)
        progress = tqdm(total=self.args.max_steps, initial=self.state.global_step, desc="ppo")
        while self.state.global_step < self.args.max_steps:
            metrics = self.training_step()
            self.state.global_step += 1
            progress.update()
            if self.state.global_step % self.args.logging_steps == 0:
                for log_fn in self.log_fns:
                    log_fn(metrics, self.state.global_step)
            if self.state.global_step % self.args.save_steps == 0:
                with staging(self.output_dir) as root:  # renamed to checkpoint-<step> once complete
                    self.save(str(root / f"checkpoint-{self.state.global_step}"))
                rotate_checkpoints(self.output_dir, self.args.save_total_limit)
        progress.close()
        return self.state

    def save_model(self, output_dir: str) -> None:
        """Save the policy and its tokenizer (as ``Trainer.save_model`` does), loadable with ``from_pretrained``."""
        self.model.save_pretrained(output_dir)
        self.tokenizer.save_pretrained(output_dir)

    def save(self, folder: str) -> None:
        """A resumable checkpoint: the policy, its tokenizer and ``ppo_state.pt``."""
        self.save_model(folder)
        state = {
            "global_step": self.state.global_step,
            "value_head": self.value_head.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "rng": torch.get_rng_state(),
        }
        torch.save(state, Path(folder) / PPO_STATE)
        log.info("PPO checkpoint at step %d saved to %s", self.state.global_step, folder)

    def load(self, folder: str) -> None:
        """Restore the policy weights, value head, optimizer, RNG and step from a checkpoint of :meth:`save`."""
        from safetensors.torch import load_file

        if hasattr(self.model, "peft_config"):
            from peft import set_peft_model_state_dict

            set_peft_model_state_dict(self.model, load_file(Path(folder) / "adapter_model.safetensors"))
        else:
            unexpected = self.model.load_state_dict(
                load_file(Path(folder) / "model.safetensors"), strict=False
            )[1]
            if unexpected:
                raise ValueError(
                    f"checkpoint {folder} does not match the policy: unexpected keys {unexpected[:5]}"
                )
        state = torch.load(Path(folder) / PPO_STATE, weights_only=False)
        self.value_head.load_state_dict(state["value_head"])
        self.optimizer.load_state_dict(state["optimizer"])
        torch.set_rng_state(state["rng"])
        self.state.global_step = state["global_step"]
