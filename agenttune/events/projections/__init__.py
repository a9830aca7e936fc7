"""Projections of EventLogs into what each consumer reads: SFT rows, DPO pairs, RL rows, evaluator input, audits."""

from agenttune.events.projections.audit import audit_records, redact
from agenttune.events.projections.dpo import dpo_row, dpo_row_by_reward, dpo_row_from_branches, preference_row
from agenttune.events.projections.evaluator import evaluator_input
from agenttune.events.projections.messages import chat_messages, rendered_messages
from agenttune.events.projections.rl import rl_row
from agenttune.events.projections.sft import (
    DEFAULT_WEIGHTS,
    assistant_turn_starts,
    segment_weights,
    sft_row,
    sft_rows,
)

__all__ = [
    "DEFAULT_WEIGHTS",
    "assistant_turn_starts",
    "audit_records",
    "chat_messages",
    "dpo_row",
    "dpo_row_by_reward",
    "dpo_row_from_branches",
    "evaluator_input",
    "preference_row",
    "redact",
    "rendered_messages",
    "rl_row",
    "segment_weights",
    "sft_row",
    "sft_rows",
]
