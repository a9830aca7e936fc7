"""The customer's side: the tools a banking customer has on their own (apply for a card, refer a friend, make a
purchase, ask for a human), the gateway to the discoverable tools the agent gave them, and those tools."""

from __future__ import annotations

import hashlib

from tau2.environment.toolkit import ToolKitBase, ToolType, is_tool

from agenttune.benchmarks.tau2.banking.catalogue import (
    CATALOGUE,
    bind_arguments,
    discoverable,
    lookup,
    parse_arguments,
)
from agenttune.benchmarks.tau2.banking.data import BankingDB, content_id
from agenttune.benchmarks.tau2.banking.money import dollars, today


# ---- discoverable tools the agent can give the user ----------------------------------------------
@discoverable("user", "write")
def submit_cash_back_dispute_0589(db: BankingDB, user_id: str, transaction_id: str) -> str:
    """Dispute the cash back or points a credit card transaction earned.

    Args:
        user_id: your user id
        transaction_id: the transaction whose rewards are wrong
    """
    transaction = db.record("credit_card_transaction_history", transaction_id, "transaction")
    if transaction.get("user_id") != user_id:
        raise ValueError(f"transaction {transaction_id!r} is not yours")
    fields = dict(user_id=user_id, transaction_id=transaction_id, submitted_at=today(), status="SUBMITTED")
    dispute = db.insert("cash_back_disputes", "dsp", fields, "dispute_id")
    return f"Cash back dispute {dispute['dispute_id']} submitted for transaction {transaction_id}."


@discoverable("user", "write")
def get_referral_link(db: BankingDB, user_id: str, card_name: str) -> str:
    """Get your personal link for referring a friend to a Rho-Bank card.

    Args:
        user_id: your user id
        card_name: the card to refer a friend to
    """
    db.record("users", user_id, "user")
    return (
        f"https://rho-bank.example/refer/{content_id(user_id, card_name)}?card={card_name.replace(' ', '+')}"
    )


@discoverable("user", "read")
def get_card_last_4_digits(db: BankingDB, credit_card_account_id: str) -> str:
    """Read the last 4 digits printed on your credit card.

    Args:
        credit_card_account_id: the credit card account
    """
    db.record("credit_card_accounts", credit_card_account_id, "credit card account")
    # the data stores no card numbers; the tasks' gold disputes use these digits, derived from the account id
    digest = hashlib.sha256(f"card_last4:{credit_card_account_id}".encode()).hexdigest()
    digits = "".join(c for c in digest if c.isdigit())[:4].ljust(4, "0")
    return f"The last 4 digits of your card are {digits}."


@discoverable("user", "write")
def deposit_check_3847(db: BankingDB, account_id: str, check_amount: float) -> str:
    """Deposit a check into one of your accounts with the mobile app.

    Args:
        account_id: the account to deposit into
        check_amount: the check's amount in dollars
    """
    if check_amount <= 0:
        raise ValueError("check_amount must be positive")
    account = db.record("accounts", account_id, "account")
    fields = dict(
        account_id=account_id, date=today(), description="MOBILE CHECK DEPOSIT", amount=check_amount,
        type="mobile_deposit", status="pending",
    )  # fmt: skip
    db.insert("bank_account_transaction_history", "btxn", fields, "transaction_id")
    return f"Check of {dollars(check_amount)} deposited to {account['account_id']}; funds are pending."


class BankingUserTools(ToolKitBase):
    """The customer's tools; they act on the agent's database (one bank, one state)."""

    def __init__(self, agent_tools: ToolKitBase) -> None:
        self._agent_tools = agent_tools
        super().__init__(agent_tools.db)

    @property
    def db(self) -> BankingDB:
        return self._agent_tools.db

    @db.setter
    def db(self, value: BankingDB) -> None:
        self._agent_tools.db = value

    @is_tool(ToolType.WRITE)
    def apply_for_credit_card(
        self, card_type: str, customer_name: str, annual_income: float, rho_bank_subscription: bool = False
    ) -> str:
        """Apply for a Rho-Bank credit card.

        Args:
            card_type: the card's name, e.g. 'Gold Rewards Card'
            customer_name: your full legal name
            annual_income: your yearly income in dollars
            rho_bank_subscription: whether you have a Rho-Bank+ subscription
        """
        if annual_income < 0:
            raise ValueError("annual_income cannot be negative")
        fields = dict(
            card_type=card_type, customer_name=customer_name, annual_income=float(annual_income),
            rho_bank_subscription=rho_bank_subscription, status="PENDING", date=today(),
        )  # fmt: skip
        application = self.db.insert("credit_card_applications", "app", fields, "application_id")
        return f"Application {application['application_id']} for a {card_type} submitted."

    @is_tool(ToolType.WRITE)
    def submit_referral(self, user_id: str, account_type: str) -> str:
        """Refer a friend to a Rho-Bank account or card.

        Args:
            user_id: your user id
            account_type: the account or card you refer your friend to
        """
        self.db.record("users", user_id, "user")
        fields = dict(
            referrer_id=user_id,
            referred_account_type=account_type,
            referral_status="NO_PROGRESS",
            date=today(),
        )
        referral = self.db.insert("referrals", "ref", fields, "referral_id")
        return f"Referral {referral['referral_id']} to {account_type} submitted."

    @is_tool(ToolType.WRITE)
    def submit_transaction(
        self, user_id: str, credit_card_type: str, merchant_name: str, amount: float, category: str
    ) -> str:
        """Make a purchase with one of your credit cards.

        Args:
            user_id: your user id
            credit_card_type: the card to pay with, e.g. 'Silver Rewards Card'
            merchant_name: where you buy
            amount: the price in dollars
            category: the purchase category, e.g. 'Shopping'
        """
        if amount <= 0:
            raise ValueError("amount must be positive")
        fields = dict(
            user_id=user_id, credit_card_type=credit_card_type, merchant_name=merchant_name,
            transaction_amount=dollars(amount), transaction_date=today(), category=category, status="PENDING",
        )  # fmt: skip
        transaction = self.db.insert("credit_card_transaction_history", "txn", fields, "transaction_id")
        return f"Purchase of {dollars(amount)} at {merchant_name} made ({transaction['transaction_id']})."

    @is_tool(ToolType.WRITE)
    def request_human_agent_transfer(self) -> str:
        """Ask to be transferred to a human agent."""
        self.db.insert(
            "human_transfer_requests", "xfer", {"requested_at": today(), "by": "user"}, "request_id"
        )
        return "You asked for a human agent; the agent has been told."

    @is_tool(ToolType.WRITE)
    def call_discoverable_user_tool(self, discoverable_tool_name: str, arguments: str = "{}") -> str:
        """Use a tool the agent gave you.

        Args:
            discoverable_tool_name: the tool's name, as the agent gave it
            arguments: JSON object of the tool's arguments, e.g. '{"user_id": "123"}'
        """
        tool = lookup(discoverable_tool_name, "user")
        if discoverable_tool_name not in self.db.user_discoverable_tools.data:
            raise ValueError(f"the agent has not given you {discoverable_tool_name!r}")
        bound = bind_arguments(tool, parse_arguments(arguments))
        result = tool.function(self.db, **bound)
        record = {"tool_name": discoverable_tool_name, "arguments": bound}
        self.db.table("user_discoverable_tool_calls")[f"ucall_{content_id(record)}"] = record
        return result

    @is_tool(ToolType.READ)
    def list_discoverable_user_tools(self) -> str:
        """List the tools the agent gave you."""
        given = sorted(self.db.user_discoverable_tools.data)
        return (
            "\n\n".join(CATALOGUE[name].card() for name in given)
            if given
            else "You have not been given any tools."
        )
