"""BFCL's own multi-turn checker on an agenttune episode.

BFCL scores a multi-turn entry by re-executing the model's calls, turn by turn, on fresh instances of the task's
classes and comparing them with the ground truth's: after every turn that has reference calls, the instances'
state must equal the reference's (``state_checker``) and the model's results so far must contain the turn's
reference results (``response_checker``). :func:`bfcl_check` hands an episode's calls to
``bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker`` in the shape BFCL's runner does (turn -> step ->
calls as Python source), so the verdict is BFCL's.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import Any

FORCE_TERMINATED = "multi_turn:force_terminated"


def call_source(name: str, arguments: Mapping[str, Any]) -> str:
    """A tool call in the Python syntax BFCL executes: ``mv(source='a', destination='b')``.

    >>> call_source("mv", {"source": "a.txt", "destination": "tmp"})
    "mv(source='a.txt', destination='tmp')"
    """
    return f"{name}({', '.join(f'{key}={value!r}' for key, value in arguments.items())})"


def bfcl_check(
    record: Mapping[str, Any], ground_truth: Sequence[Sequence[str]], calls: Sequence[Sequence[Sequence[str]]]
) -> dict[str, Any]:
    """BFCL's verdict on one episode: ``{"valid", "error_type", "error_message", "turns_passed", "turns"}``.

    ``turns_passed`` counts the leading turns that BFCL's checker passes on their own (the episode cut after
    them, against the reference cut there): BFCL's entry score is all or nothing, and this is its partial credit,
    given by the same checker.

    Args:
        record: the task's BFCL question record (``id``, ``initial_config``, ``involved_classes``).
        ground_truth: the reference calls of each turn.
        calls: the episode's calls per user turn, per step (one assistant message), as :func:`call_source` writes
            them; steps without calls are left out, as BFCL's decoder leaves them out.
    """
    turns = len(ground_truth)
    if len(calls) != turns:  # BFCL fails an entry whose turns were not all played
        message = f"{len(calls)} turns played of {turns}"
        verdict = {"valid": False, "error_type": FORCE_TERMINATED, "error_message": message}
    else:
        verdict = _multi_turn_checker(record, ground_truth, calls)
    passed = turns if verdict["valid"] else _turns_passed(record, ground_truth, calls)
    return {**verdict, "turns_passed": passed, "turns": turns}


def _turns_passed(
    record: Mapping[str, Any], ground_truth: Sequence[Sequence[str]], calls: Sequence[Sequence[Sequence[str]]]
) -> int:
    """How many leading turns pass BFCL's checker, cut after them (the checker stops at the first failing turn,
    so the first cut that fails ends the count)."""
    for cut in range(1, min(len(calls), len(ground_truth)) + 1):
        if not _multi_turn_checker(record, ground_truth[:cut], calls[:cut])["valid"]:
            return cut - 1
    return min(len(calls), len(ground_truth))


def _multi_turn_checker(
    record: Mapping[str, Any], ground_truth: Sequence[Sequence[str]], calls: Sequence[Sequence[Sequence[str]]]
) -> dict[str, Any]:
    """``multi_turn_checker`` on turns of equal count, as BFCL's runner calls it."""
    from bfcl_eval.eval_checker.multi_turn_eval import multi_turn_utils
    from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker import multi_turn_checker

    # BFCL keeps each executed instance in multi_turn_utils' globals under a name that starts with the model's
    # name: a fresh name per check keeps episodes apart, and its instances are dropped afterwards
    model_name = f"agenttune_{uuid.uuid4().hex}"
    category = str(record["id"]).rsplit("_", 1)[0]
    try:
        verdict = multi_turn_checker(
            [[list(step) for step in turn if step] for turn in calls],
            [list(turn) for turn in ground_truth],
            dict(record),
            category,
            model_name,
        )
    finally:
        for name in [name for name in vars(multi_turn_utils) if name.startswith(model_name)]:
            delattr(multi_turn_utils, name)
    return {
        "valid": bool(verdict["valid"]),
        "error_type": str(verdict.get("error_type", "")),
        "error_message": str(verdict.get("error_message", "")),
    }
