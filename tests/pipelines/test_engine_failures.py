"""An engine that cannot generate (an unreachable OpenAI-compatible endpoint) fails its episodes, not the job: each
failed generation is an ERROR event, the summary counts them (``engine/failures``), and a run whose generations
all failed ends ``failed``, never ``completed`` with a zero score."""

from __future__ import annotations

import socket

from agenttune.events import load_jsonl
from agenttune.events.schema import EventKind
from tests.pipelines.test_custom_benchmark import ARITHMETIC


def closed_port() -> int:
    """A local port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_an_unreachable_endpoint_fails_every_episode_and_the_run(run_pipeline):
    url = f"http://127.0.0.1:{closed_port()}/v1"
    overrides = [
        "pipeline=evaluate",
        *ARITHMETIC,
        "benchmark.num_eval=3",
        "model.engine=openai",
        f"model.engine_url={url}",
    ]
    run_dir, summary = run_pipeline(overrides)
    assert summary["status"] == "failed"
    assert summary["error"].startswith(
        f"all 3 generations failed in the engine (engine/failures); the first: {url}"
    )
    assert "Connection refused" in summary["error"]
    assert (summary["metrics"]["engine/generations"], summary["metrics"]["engine/failures"]) == (3, 3)
    logs = load_jsonl(run_dir / "eventlogs" / "eval.jsonl")
    assert len(logs) == 3
    for log in logs:
        kinds = [e.kind for e in log.events]
        assert EventKind.TEXT not in kinds and kinds[-2:] == [EventKind.ERROR, EventKind.TURN_COMPLETE]
        assert log.events[-2].payload.source == "engine" and log.metadata["termination"] == "error"
