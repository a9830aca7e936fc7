"""tau2's domain facts for self-evolution: per-domain rules layered on the schema-derived ToolGraph, as plain
dicts (overridable from config). The benchmark owns them; the pipelines hand them to :mod:`agenttune.selfevolve`.

Keys: ``prerequisites`` maps a write tool to tools that must all have run before it (on top of the
schema-derived "read what you act on" groups); ``notes`` are policy reminders added to the planning prompt.
"""

from __future__ import annotations

from typing import Any

DEFAULT_RULES: dict[str, dict[str, Any]] = {
    "airline": {
        "prerequisites": {
            "cancel_reservation": ["get_reservation_details"],
            "update_reservation_flights": ["get_reservation_details"],
            "update_reservation_baggages": ["get_reservation_details"],
            "update_reservation_passengers": ["get_reservation_details"],
            "book_reservation": ["get_user_details"],
            "send_certificate": ["get_user_details"],
        },
        "notes": [
            "Check the user's membership and the reservation's insurance before a cancellation or refund."
        ],
    },
    "retail": {
        "prerequisites": {
            "exchange_delivered_order_items": ["get_order_details"],
            "return_delivered_order_items": ["get_order_details"],
            "modify_pending_order_items": ["get_order_details"],
            "cancel_pending_order": ["get_order_details"],
        },
        "notes": [
            "Authenticate the user (find_user_id_by_email or find_user_id_by_name_zip) before any lookup."
        ],
    },
    "telecom": {
        "prerequisites": {"refuel_data": ["get_data_usage"]},
        "notes": [
            "Ask the user to check their phone (status bar, network, data settings) before changing the line."
        ],
    },
}


def rules_for(domain: str) -> dict[str, Any]:
    """A copy of the domain's rules (empty for a domain without any); banking's are read from its knowledge base."""
    if domain == "banking_knowledge":
        from agenttune.benchmarks.tau2.banking.rules import policy_rules

        return dict(policy_rules())
    return dict(DEFAULT_RULES.get(domain, {}))
