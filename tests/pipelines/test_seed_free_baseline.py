"""The self-evolution baseline does not depend on the seed when its weights are fixed, it decodes greedily and the
benchmark is deterministic (tau2 with the scripted user): the seeds of a study evaluate it once (resume=true)."""

from __future__ import annotations

import pytest
from transformers import set_seed

pytest.importorskip("tau2.domains.retail.environment")

from agenttune.benchmarks.base import load_benchmark  # noqa: E402
from agenttune.events import load_jsonl  # noqa: E402
from agenttune.pipelines.self_evolve import seed_free_baseline  # noqa: E402
from agenttune.stages.phases import play, policy_engine  # noqa: E402
from agenttune.stages.policy import load_policy  # noqa: E402
from tests.conftest import compose_config  # noqa: E402

TINY_RETAIL = [
    "+experiment=tau2_toolgraph_dpo",
    "model=tiny_random",
    "model.max_new_tokens=8",
    "benchmark.domains=[retail]",
    "benchmark.num_eval=2",
    "harness.max_steps=3",
]


@pytest.fixture
def student(tmp_path):
    """The tiny random model saved as a student folder: weights that no longer depend on the seed."""
    model, tokenizer = load_policy(compose_config(TINY_RETAIL, tmp_path))
    model = model.merge_and_unload() if hasattr(model, "merge_and_unload") else model
    model.save_pretrained(tmp_path / "student")
    tokenizer.save_pretrained(tmp_path / "student")
    return f"init_from={tmp_path / 'student'}"


def test_a_greedy_policy_plays_tau2_with_the_scripted_user_alike_under_any_seed(tmp_path, student):
    cfg = compose_config([*TINY_RETAIL, student], tmp_path)
    benchmark = load_benchmark(cfg)
    assert seed_free_baseline(cfg, benchmark)
    model, tokenizer = load_policy(cfg)
    played = []
    for seed in (0, 1):
        set_seed(seed)
        logs = play(cfg, benchmark, policy_engine(cfg, model, tokenizer), benchmark.tasks("eval"))
        played.append([([event.payload for event in log.events], log.token_ids) for log in logs])
    assert played[0] == played[1]
    assert any(len(events) > 2 for events, _ in played[0])  # the policy spoke and the user answered


@pytest.mark.parametrize("override", ["model.eval_temperature=0.7", "harness.user=llm", None])
def test_sampling_an_llm_user_or_weights_built_from_the_seed_make_the_baseline_depend_on_it(
    tmp_path, student, override
):
    overrides = (
        [*TINY_RETAIL, student, override] if override else TINY_RETAIL
    )  # None: the random model itself
    cfg = compose_config(overrides, tmp_path)
    assert not seed_free_baseline(cfg, load_benchmark(cfg))


@pytest.mark.slow
def test_the_second_seed_takes_the_first_seeds_baseline_and_plays_the_rest(run_pipeline, student):
    overrides = [
        *TINY_RETAIL,
        student,
        "harness.toolgraph.candidate_scoring=false",
        "benchmark.num_train=2",
        "algorithm.max_steps=1",
        "algorithm.per_device_batch_size=1",
        "resume=true",
    ]
    runs = [run_pipeline([*overrides, f"seed={seed}"], name=f"seeds/{seed}") for seed in (0, 1)]
    for _, summary in runs:
        assert summary["status"] == "completed", summary["error"]

    def ids(run_dir, phase):
        return sorted(log.id for log in load_jsonl(run_dir / "eventlogs" / f"{phase}.jsonl"))

    (first, first_summary), (second, second_summary) = runs
    assert ids(second, "eval_baseline") == ids(first, "eval_baseline")  # ids carry a random suffix
    assert set(ids(second, "eval_toolgraph")).isdisjoint(ids(first, "eval_toolgraph"))
    for key in ("eval/baseline/avg_reward", "eval/baseline/avg_reward/n"):
        assert second_summary["metrics"][key] == first_summary["metrics"][key]
