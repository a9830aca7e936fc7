"""The typed ``self_heal`` config group (``conf/self_heal/``): what the loop reads, when it retrains, how it gates."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class GateConfig:
    """When a retrained candidate replaces the current policy."""

    min_heldout: int = 8  # held-out cases the gate needs; fewer and it refuses to decide
    min_success_gain: float = 0.0  # candidate success - current success must exceed this
    max_loop_rate_increase: float = 0.0  # candidate loop rate - current must not exceed this
    max_argument_accuracy_drop: float = 0.0  # current tool-argument accuracy - candidate must not exceed this
    # a held-out case whose gold the oracle contradicts: refuse (the whole set) | drop (the case; the minimum still
    # applies to what is left; for a benchmark whose oracle is a heuristic teacher, such as CUAD's)
    contradicted: str = "refuse"
    require_approval: bool = False  # write approvals/pending.json for a person instead of deploying
    rollback_tolerance: float = 0.0  # a post-deployment success drop beyond this rolls back


@dataclass
class SelfHealConfig:
    mode: str = "once"  # once | daemon (watch `watch_dir`, retrain in a background thread)
    logs: list[str] = field(
        default_factory=list
    )  # EventLog files or folders (eventlogs/, audit.jsonl) to read
    watch_dir: str = ""  # daemon: the folder of EventLog files it ingests
    poll_s: float = 1.0  # daemon: seconds between scans of watch_dir
    max_rounds: int = 0  # daemon: stop after this many heal rounds (0: until SIGTERM)
    reward_threshold: float = 0.5  # an episode whose total reward is below this failed
    reward: str = "total"  # the episode REWARD read (total, or a component such as answered)
    correction: str = "oracle"  # the benchmark's scripted agent that replays failed tasks (the teacher)
    divergence_pairs: bool = True  # also DPO pairs cut at the divergence point (preference algorithms)
    min_failures: int = 2  # retrain only with at least this many failures
    heldout: int = 8  # held-out (eval split) tasks the gate plays
    gate: GateConfig = field(default_factory=GateConfig)
