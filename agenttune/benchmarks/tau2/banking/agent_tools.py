"""The banking agent's tools (a tau2 toolkit): customer look-ups, email change, identity-verification logging, the
transfer to a human, knowledge-base search, and the gateway to the discoverable tools (unlock and call the
agent's, give the user's).

Rules of the gateway: a discoverable tool is called only after it was unlocked (else an error result); a call's
``arguments`` are a JSON object checked against the tool's signature; every call of a discoverable *write* tool is
logged in ``agent_discoverable_tools`` (so the DB hash sees which tools were used, as tau2-bench's domain does);
reads are not logged. Giving a user tool writes ``user_discoverable_tools``. Errors are raised as ``ValueError``:
tau2's environment turns them into error tool results.
"""

from __future__ import annotations

import json

from tau2.environment.toolkit import ToolKitBase, ToolType, is_tool

from agenttune.benchmarks.tau2.banking import account_tools, credit_card_tools, knowledge  # noqa: F401 - register tools
from agenttune.benchmarks.tau2.banking.catalogue import CATALOGUE, bind_arguments, lookup, parse_arguments
from agenttune.benchmarks.tau2.banking.data import BankingDB
from agenttune.benchmarks.tau2.banking.money import NOW

# the reason codes of the knowledge base's "Human Agent Transfer Reason Codes" article
TRANSFER_REASONS = (
    "fraud_or_security_concern",
    "account_closure_request",
    "deceased_account_holder",
    "legal_or_regulatory_matter",
    "account_ownership_dispute",
    "complex_billing_dispute",
    "abusive_customer_behavior",
    "third_party_inquiry",
    "technical_system_error",
    "unconfirmed_external_communication",
    "customer_demands_after_unavailable_offer_refusal",
    "kb_search_unsuccessful_customer_requests_transfer",
    "specialized_department_required",
    "accessibility_or_special_needs",
    "customer_frustrated_demands_human",
    "supervisor_request_service_complaint",
    "customer_requests_human_no_specific_reason",
    "request_completed_customer_wants_human_followup",
    "other",
)


GATEWAYS = ("call_discoverable_agent_tool", "unlock_discoverable_agent_tool", "give_discoverable_user_tool")


def _records(rows: list[dict], what: str) -> str:
    return json.dumps(rows, indent=1) if rows else f"No {what} found."


class BankingAgentTools(ToolKitBase):
    db: BankingDB

    # ---- how ToolGraph sees the gateway (tau2's harness asks the toolkit) ---------------------------
    def discoverable_tool_kinds(self) -> dict[str, str]:
        """Kinds of the discoverable tools (agent's and user's) the gateway tools run."""
        return {name: tool.kind for name, tool in CATALOGUE.items()}

    def discoverable_tool_schemas(self) -> list[dict]:
        """OpenAI-style schemas of the agent's discoverable tools (what unlocking reveals)."""
        return [tool.schema() for tool in CATALOGUE.values() if tool.side == "agent"]

    def tool_node(self, name: str, arguments: dict) -> str:
        """``call_discoverable_agent_tool(agent_tool_name=X)`` is node ``X``; unlocking X is
        ``unlock_discoverable_agent_tool:X``; giving user tool Y is ``give_discoverable_user_tool:Y``."""
        target = arguments.get("agent_tool_name") or arguments.get("discoverable_tool_name")
        if not isinstance(target, str) or name not in GATEWAYS:
            return name
        return target if name == "call_discoverable_agent_tool" else f"{name}:{target}"

    def tool_requirements(self) -> dict[str, list[str]]:
        """A discoverable tool is called only after it is unlocked."""
        return {
            name: [f"unlock_discoverable_agent_tool:{name}"]
            for name, tool in CATALOGUE.items()
            if tool.side == "agent"
        }

    # ---- look-ups --------------------------------------------------------------------------------
    @is_tool(ToolType.READ)
    def get_current_time(self) -> str:
        """Get the current time, e.g. for logging a verification."""
        return f"The current time is {NOW}."

    @is_tool(ToolType.READ)
    def get_user_information_by_id(self, user_id: str) -> str:
        """Get a user's information (name, date of birth, email, phone number, address) by user id.

        Args:
            user_id: the user's id
        """
        return _records(self.db.where("users", user_id=user_id), f"user with id {user_id}")

    @is_tool(ToolType.READ)
    def get_user_information_by_name(self, customer_name: str) -> str:
        """Get a user's information by full name (case sensitive).

        Args:
            customer_name: the user's full name
        """
        return _records(self.db.where("users", name=customer_name), f"user named {customer_name}")

    @is_tool(ToolType.READ)
    def get_user_information_by_email(self, email: str) -> str:
        """Get a user's information by email address.

        Args:
            email: the user's email
        """
        return _records(self.db.where("users", email=email), f"user with email {email}")

    @is_tool(ToolType.READ)
    def get_referrals_by_user(self, user_id: str) -> str:
        """Get the referrals a user has made.

        Args:
            user_id: the referrer's user id
        """
        return _records(self.db.where("referrals", referrer_id=user_id), f"referrals by {user_id}")

    @is_tool(ToolType.READ)
    def get_credit_card_transactions_by_user(self, user_id: str) -> str:
        """Get a user's credit card transactions.

        Args:
            user_id: the user's id
        """
        rows = self.db.where("credit_card_transaction_history", user_id=user_id)
        return _records(rows, f"credit card transactions of {user_id}")

    @is_tool(ToolType.READ)
    def get_credit_card_accounts_by_user(self, user_id: str) -> str:
        """Get a user's credit card accounts (card type, opening date, balance, reward points).

        Args:
            user_id: the user's id
        """
        return _records(
            self.db.where("credit_card_accounts", user_id=user_id), f"credit card accounts of {user_id}"
        )

    @is_tool(ToolType.READ)
    def KB_search(self, query: str) -> str:  # noqa: N802 - the name the domain's policy uses
        """Search the Rho-Bank knowledge base (policies, products, procedures, discoverable tools).

        Args:
            query: what to look for, in words
        """
        return knowledge.search(query)

    # ---- writes ----------------------------------------------------------------------------------
    @is_tool(ToolType.WRITE)
    def change_user_email(self, user_id: str, new_email: str) -> str:
        """Change a user's email address.

        Args:
            user_id: the user's id
            new_email: the new email address
        """
        if "@" not in new_email:
            raise ValueError(f"{new_email!r} is not an email address")
        self.db.record("users", user_id, "user")["email"] = new_email
        return f"Email of user {user_id} changed to {new_email}."

    @is_tool(ToolType.WRITE)
    def log_verification(
        self,
        name: str,
        user_id: str,
        address: str,
        email: str,
        phone_number: str,
        date_of_birth: str,
        time_verified: str,
    ) -> str:
        """Log that a user's identity was verified (after confirming 2 of: date of birth, email, phone, address).

        Args:
            name: the user's full name
            user_id: the user's id
            address: the user's address
            email: the user's email
            phone_number: the user's phone number
            date_of_birth: the user's date of birth (MM/DD/YYYY)
            time_verified: when the user was verified, from get_current_time
        """
        record_id = f"{user_id}_{time_verified.split()[0].replace('-', '')}"
        if record_id in self.db.table("verification_history"):
            raise ValueError(f"a verification of {user_id} is already logged for that day")
        self.db.table("verification_history")[record_id] = dict(
            name=name, user_id=user_id, address=address, email=email, phone_number=phone_number,
            date_of_birth=date_of_birth, time_verified=time_verified,
        )  # fmt: skip
        return f"Verification of {name} ({user_id}) logged at {time_verified}."

    @is_tool(ToolType.GENERIC)
    def transfer_to_human_agents(self, summary: str, reason: str = "other") -> str:
        """Transfer the user to a human agent. Search the knowledge base for the right reason code first.

        Args:
            summary: the user's issue and what was tried
            reason: the transfer reason code from the knowledge base
        """
        if reason not in TRANSFER_REASONS:
            raise ValueError(f"unknown transfer reason {reason!r}; the knowledge base lists the codes")
        return f"Transfer successful (reason: {reason}). A human agent will assist you shortly."

    # ---- discoverable tools ----------------------------------------------------------------------
    @is_tool(ToolType.GENERIC)
    def unlock_discoverable_agent_tool(self, agent_tool_name: str) -> str:
        """Unlock an internal tool the knowledge base names, and see its parameters.

        Args:
            agent_tool_name: the tool's exact name from the knowledge base
        """
        tool = lookup(agent_tool_name, "agent")
        if agent_tool_name not in self.db.unlocked_tools:
            self.db.unlocked_tools.append(agent_tool_name)
        return f"Tool unlocked.\n{tool.card()}\nCall it with call_discoverable_agent_tool."

    @is_tool(ToolType.WRITE)
    def call_discoverable_agent_tool(self, agent_tool_name: str, arguments: str = "{}") -> str:
        """Call an internal tool you have unlocked.

        Args:
            agent_tool_name: the unlocked tool's name
            arguments: JSON object of the tool's arguments, e.g. '{"user_id": "abc123"}'
        """
        tool = lookup(agent_tool_name, "agent")
        if agent_tool_name not in self.db.unlocked_tools:
            raise ValueError(f"{agent_tool_name} is locked: call unlock_discoverable_agent_tool first")
        bound = bind_arguments(tool, parse_arguments(arguments))
        if tool.kind == "write":
            self.db.table("agent_discoverable_tools")[agent_tool_name] = {
                "tool_name": agent_tool_name,
                "status": "CALLED",
            }
        return tool.function(self.db, **bound)

    @is_tool(ToolType.GENERIC)
    def give_discoverable_user_tool(self, discoverable_tool_name: str, arguments: str = "{}") -> str:
        """Give the user a tool the knowledge base says they use themselves.

        Args:
            discoverable_tool_name: the tool's exact name from the knowledge base
            arguments: JSON object of arguments to suggest to the user (optional)
        """
        tool = lookup(discoverable_tool_name, "user")
        suggested = parse_arguments(arguments)
        unknown = sorted(set(suggested) - set(tool.parameters))
        if unknown:
            raise ValueError(f"{discoverable_tool_name} has no parameter {', '.join(unknown)}")
        self.db.table("user_discoverable_tools")[discoverable_tool_name] = {
            "tool_name": discoverable_tool_name,
            "status": "GIVEN",
        }
        return f"Tool given to the user.\n{tool.card()}"
