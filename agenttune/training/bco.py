"""BCO (binary classifier optimisation, Jung et al. 2024, arXiv:2404.04656).

Paired data (``data.preferences``) trains with TRL's DPOTrainer and ``loss_type="bco_pair"``. TRL 1.16 has no
BCOTrainer for unpaired data (``data.unpaired``), so that trains with
:class:`~agenttune.training.bco_unpaired.BCOUnpairedTrainer`, the BCO loss on KTOTrainer (its KTOConfig takes
``algorithm.trl``).
"""

from __future__ import annotations

from dataclasses import dataclass

from agenttune.training.arguments import common_arguments, trl_config
from agenttune.training.data import label_by_reward
from agenttune.training.dpo import preference_trainer
from agenttune.training.kto import KTOAlgorithmConfig
from agenttune.training.registry import Algorithm
from agenttune.training.spec import TrainerSpec


@dataclass
class BCOAlgorithmConfig(KTOAlgorithmConfig):
    """KTO's fields: ``beta``, ``max_length`` and ``desirable_reward`` (the label threshold of unpaired rows), and
    ``share_prompt`` for paired BCO."""

    share_prompt: bool = True  # paired BCO encodes each pair's prompt once, as DPO does (training/dpo.py)


def build_bco(spec: TrainerSpec):
    """Paired BCO on ``data.preferences`` when given, else unpaired BCO on ``data.unpaired``."""
    if spec.data.preferences is not None:
        return preference_trainer(spec, "bco_pair")
    from trl import KTOConfig

    from agenttune.training.bco_unpaired import BCOUnpairedTrainer

    spec.refuse_rollouts()
    algorithm = spec.algorithm
    arguments = {
        **common_arguments(algorithm, spec.output_dir),
        "beta": algorithm.beta,
        "max_length": algorithm.max_length,
        "loss_type": "apo_zero_unpaired",  # the KTO loss without its KL batch, which BCO does not use
    }
    return BCOUnpairedTrainer(
        model=spec.model,
        ref_model=spec.reference_model(),
        args=trl_config(KTOConfig, algorithm, arguments),
        train_dataset=label_by_reward(spec.data.require("unpaired", "bco"), algorithm.desirable_reward),
        eval_dataset=spec.data.eval,
        processing_class=spec.tokenizer,
        callbacks=spec.callbacks,
        peft_config=spec.peft_config,
    )


ALGORITHM = Algorithm(name="bco", config=BCOAlgorithmConfig, build=build_bco, data="preferences")
