"""The agent's discoverable tools for credit cards: disputes, rewards, replacements, closures, statement credits,
account flags, payments and credit-limit increases. Each reads or writes the :class:`BankingDB` it is given and
raises ``ValueError`` with the reason when a request breaks a rule (tau2 returns it as an error tool result)."""

from __future__ import annotations

import json

from agenttune.benchmarks.tau2.banking.catalogue import discoverable
from agenttune.benchmarks.tau2.banking.data import BankingDB
from agenttune.benchmarks.tau2.banking.money import amount as parse_amount
from agenttune.benchmarks.tau2.banking.money import dollars, today


def _one_of(name: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ValueError(f"invalid {name} {value!r}; must be one of {', '.join(allowed)}")


def _card_account(db: BankingDB, account_id: str, user_id: str | None = None) -> dict:
    account = db.record("credit_card_accounts", account_id, "credit card account")
    if user_id is not None and account.get("user_id") != user_id:
        raise ValueError(f"credit card account {account_id!r} does not belong to user {user_id!r}")
    return account


def _rows(rows: list[dict], empty: str) -> str:
    return json.dumps(rows, indent=1) if rows else empty


@discoverable("agent", "write")
def update_transaction_rewards_3847(db: BankingDB, transaction_id: str, new_rewards_earned: str) -> str:
    """Update the rewards earned on a credit card transaction.

    Args:
        transaction_id: the transaction to correct
        new_rewards_earned: the corrected rewards, e.g. '6300 points'
    """
    transaction = db.record("credit_card_transaction_history", transaction_id, "transaction")
    transaction["rewards_earned"] = new_rewards_earned
    return f"Rewards of transaction {transaction_id} set to {new_rewards_earned}."


DISPUTE_REASONS = (
    "unauthorized_fraudulent_charge",
    "duplicate_charge",
    "incorrect_amount",
    "goods_services_not_received",
    "goods_services_not_as_described",
    "canceled_subscription_still_charging",
    "refund_never_processed",
)


@discoverable("agent", "write")
def file_credit_card_transaction_dispute_4829(
    db: BankingDB,
    transaction_id: str,
    card_action: str,
    card_last_4_digits: str,
    full_name: str,
    user_id: str,
    phone: str,
    email: str,
    address: str,
    contacted_merchant: bool,
    purchase_date: str,
    issue_noticed_date: str,
    dispute_reason: str,
    resolution_requested: str,
    eligible_for_provisional_credit: bool,
    partial_refund_amount: float | None = None,
) -> str:
    """File a formal dispute of a credit card transaction.

    Args:
        transaction_id: the disputed transaction
        card_action: keep_active or cancel_and_reissue
        card_last_4_digits: last 4 digits of the card
        full_name: the cardholder's full name
        user_id: the cardholder's user id
        phone: the cardholder's phone number
        email: the cardholder's email
        address: the cardholder's address
        contacted_merchant: whether the customer contacted the merchant first
        purchase_date: date of the purchase (MM/DD/YYYY)
        issue_noticed_date: date the customer noticed the problem (MM/DD/YYYY)
        dispute_reason: one of unauthorized_fraudulent_charge, duplicate_charge, incorrect_amount, goods_services_not_received, goods_services_not_as_described, canceled_subscription_still_charging, refund_never_processed
        resolution_requested: full_refund or partial_refund
        eligible_for_provisional_credit: whether provisional credit applies
        partial_refund_amount: the amount asked back, for a partial_refund
    """
    _one_of("card_action", card_action, ("keep_active", "cancel_and_reissue"))
    _one_of("dispute_reason", dispute_reason, DISPUTE_REASONS)
    _one_of("resolution_requested", resolution_requested, ("full_refund", "partial_refund"))
    if resolution_requested == "partial_refund" and partial_refund_amount is None:
        raise ValueError("partial_refund_amount is required for a partial_refund")
    transaction = db.record("credit_card_transaction_history", transaction_id, "transaction")
    if transaction.get("user_id") != user_id:
        raise ValueError(f"transaction {transaction_id!r} does not belong to user {user_id!r}")
    fields = dict(
        transaction_id=transaction_id, user_id=user_id, card_action=card_action,
        card_last_4_digits=card_last_4_digits, full_name=full_name, phone=phone, email=email, address=address,
        contacted_merchant=contacted_merchant, purchase_date=purchase_date, issue_noticed_date=issue_noticed_date,
        dispute_reason=dispute_reason, resolution_requested=resolution_requested,
        partial_refund_amount=partial_refund_amount,
        eligible_for_provisional_credit=eligible_for_provisional_credit,
        provisional_credit_given=eligible_for_provisional_credit, submitted_at=today(), status="SUBMITTED",
    )  # fmt: skip
    dispute = db.insert("transaction_disputes", "dsp", fields, "dispute_id")
    credit = (
        "provisional credit within 2 business days"
        if eligible_for_provisional_credit
        else "no provisional credit"
    )
    return f"Dispute {dispute['dispute_id']} filed for transaction {transaction_id} ({dispute_reason}); {credit}."


@discoverable("agent", "read")
def get_user_dispute_history_7291(db: BankingDB, user_id: str) -> str:
    """List the credit card transaction disputes a user has filed.

    Args:
        user_id: the user whose disputes to list
    """
    return _rows(db.where("transaction_disputes", user_id=user_id), f"No disputes found for user {user_id}.")


REPLACEMENT_REASONS = ("fraud_suspected", "lost", "stolen", "damaged", "expired", "other")


@discoverable("agent", "write")
def order_replacement_credit_card_7291(
    db: BankingDB,
    credit_card_account_id: str,
    user_id: str,
    shipping_address: str,
    reason: str,
    expedited_shipping: bool = False,
) -> str:
    """Order a replacement card for a credit card account.

    Args:
        credit_card_account_id: the credit card account whose card is replaced
        user_id: the cardholder's user id
        shipping_address: where to ship the new card
        reason: one of fraud_suspected, lost, stolen, damaged, expired, other
        expedited_shipping: ship in 2 business days instead of 7-10
    """
    _one_of("reason", reason, REPLACEMENT_REASONS)
    account = _card_account(db, credit_card_account_id, user_id)
    if account.get("status", "ACTIVE") != "ACTIVE":  # the data leaves an active account's status out
        raise ValueError(f"credit card account {credit_card_account_id!r} is {account['status']}, not ACTIVE")
    fields = dict(
        credit_card_account_id=credit_card_account_id, user_id=user_id, shipping_address=shipping_address,
        reason=reason, expedited_shipping=expedited_shipping, order_date=today(), status="PENDING",
    )  # fmt: skip
    order = db.insert("credit_card_orders", "ccord", fields, "order_id")
    return f"Replacement card ordered: {order['order_id']} ({'expedited' if expedited_shipping else 'standard'})."


@discoverable("agent", "read")
def get_pending_replacement_orders_5765(db: BankingDB, credit_card_account_id: str) -> str:
    """List the replacement card orders of a credit card account that have not been delivered.

    Args:
        credit_card_account_id: the credit card account
    """
    orders = [
        o for o in db.where("credit_card_orders", credit_card_account_id=credit_card_account_id)
        if o.get("status") in ("PENDING", "PROCESSING", "SHIPPED")
    ]  # fmt: skip
    return _rows(orders, f"No pending replacement orders for {credit_card_account_id}.")


CLOSURE_REASONS = (
    "annual_fee",
    "not_using_card",
    "found_better_card",
    "unhappy_with_rewards",
    "simplifying_finances",
    "negative_experience",
    "other",
)


@discoverable("agent", "write")
def log_credit_card_closure_reason_4521(
    db: BankingDB, credit_card_account_id: str, user_id: str, closure_reason: str
) -> str:
    """Record why a customer wants to close a credit card account.

    Args:
        credit_card_account_id: the credit card account
        user_id: the cardholder's user id
        closure_reason: one of annual_fee, not_using_card, found_better_card, unhappy_with_rewards, simplifying_finances, negative_experience, other
    """
    _one_of("closure_reason", closure_reason, CLOSURE_REASONS)
    _card_account(db, credit_card_account_id, user_id)
    fields = dict(
        credit_card_account_id=credit_card_account_id, user_id=user_id, closure_reason=closure_reason,
        logged_at=today(), status="LOGGED",
    )  # fmt: skip
    record = db.insert("credit_card_closure_reasons", "clsr", fields, "record_id")
    return f"Closure reason logged: {record['record_id']} ({closure_reason})."


@discoverable("agent", "read")
def get_closure_reason_history_8293(db: BankingDB, credit_card_account_id: str) -> str:
    """List the closure reasons logged for a credit card account.

    Args:
        credit_card_account_id: the credit card account
    """
    rows = db.where("credit_card_closure_reasons", credit_card_account_id=credit_card_account_id)
    return _rows(rows, f"No closure reasons logged for {credit_card_account_id}.")


STATEMENT_CREDIT_REASONS = (
    "goodwill_adjustment",
    "promotional_credit",
    "annual_fee_reversal",
    "late_fee_reversal",
    "interest_charge_reversal",
    "dispute_resolution",
    "price_match",
    "retention_offer",
    "error_correction",
    "other",
)


@discoverable("agent", "write")
def apply_statement_credit_8472(
    db: BankingDB, user_id: str, credit_card_account_id: str, amount: float, reason: str
) -> str:
    """Apply a statement credit to a credit card account (lowers its balance).

    Args:
        user_id: the cardholder's user id
        credit_card_account_id: the credit card account
        amount: the credit in dollars
        reason: one of goodwill_adjustment, promotional_credit, annual_fee_reversal, late_fee_reversal, interest_charge_reversal, dispute_resolution, price_match, retention_offer, error_correction, other
    """
    _one_of("reason", reason, STATEMENT_CREDIT_REASONS)
    if amount <= 0:
        raise ValueError("amount must be positive")
    account = _card_account(db, credit_card_account_id, user_id)
    fields = dict(
        user_id=user_id, credit_card_type=account.get("card_type"), merchant_name="Rho-Bank Statement Credit",
        transaction_amount=dollars(-amount), transaction_date=today(), category=reason, status="COMPLETED",
        rewards_earned="0 points", credit_card_account_id=credit_card_account_id,
    )  # fmt: skip
    db.insert("credit_card_transaction_history", "txn", fields, "transaction_id")
    account["current_balance"] = dollars(parse_amount(account.get("current_balance")) - amount)
    return f"Statement credit of {dollars(amount)} applied to {credit_card_account_id} ({reason})."


@discoverable("agent", "write")
def apply_credit_card_account_flag_6147(
    db: BankingDB,
    credit_card_account_id: str,
    user_id: str,
    flag_type: str,
    expiration_date: str,
    reason: str,
) -> str:
    """Put a flag on a credit card account, such as an annual fee waiver.

    Args:
        credit_card_account_id: the credit card account
        user_id: the cardholder's user id
        flag_type: one of annual_fee_waived, promotional_apr, rewards_bonus, other
        expiration_date: when the flag ends (MM/DD/YYYY)
        reason: one of retention_offer, loyalty_benefit, promotional, error_correction, other
    """
    _one_of("flag_type", flag_type, ("annual_fee_waived", "promotional_apr", "rewards_bonus", "other"))
    _one_of(
        "reason", reason, ("retention_offer", "loyalty_benefit", "promotional", "error_correction", "other")
    )
    _card_account(db, credit_card_account_id, user_id)
    fields = dict(
        credit_card_account_id=credit_card_account_id, user_id=user_id, flag_type=flag_type,
        effective_date=today(), expiration_date=expiration_date, reason=reason, status="ACTIVE",
    )  # fmt: skip
    flag = db.insert("credit_card_account_flags", "ccflag", fields, "flag_id")
    return (
        f"Flag {flag_type} applied to {credit_card_account_id} until {expiration_date} ({flag['flag_id']})."
    )


@discoverable("agent", "write")
def close_credit_card_account_7834(db: BankingDB, credit_card_account_id: str, user_id: str) -> str:
    """Close a credit card account.

    Args:
        credit_card_account_id: the credit card account to close
        user_id: the cardholder's user id
    """
    account = _card_account(db, credit_card_account_id, user_id)
    if account.get("status") == "CLOSED":
        raise ValueError(f"credit card account {credit_card_account_id!r} is already closed")
    account.update(status="CLOSED", date_closed=today())
    return f"Credit card account {credit_card_account_id} closed."


@discoverable("agent", "write")
def pay_credit_card_from_checking_9182(
    db: BankingDB, user_id: str, checking_account_id: str, credit_card_account_id: str, amount: float
) -> str:
    """Pay a credit card balance from the customer's checking account.

    Args:
        user_id: the customer's user id
        checking_account_id: the checking account to pay from
        credit_card_account_id: the credit card account to pay
        amount: the payment in dollars
    """
    if amount <= 0:
        raise ValueError("amount must be positive")
    checking = db.record("accounts", checking_account_id, "checking account")
    if checking.get("user_id") != user_id:
        raise ValueError(f"account {checking_account_id!r} does not belong to user {user_id!r}")
    if "checking" not in str(checking.get("class", checking.get("account_type", ""))):
        raise ValueError(f"account {checking_account_id!r} is not a checking account")
    card = _card_account(db, credit_card_account_id, user_id)
    available, owed = (
        parse_amount(checking.get("current_holdings")),
        parse_amount(card.get("current_balance")),
    )
    if amount > available:
        raise ValueError(f"insufficient funds: {dollars(available)} available, {dollars(amount)} requested")
    if amount > owed:
        raise ValueError(f"payment {dollars(amount)} exceeds the card balance {dollars(owed)}")
    checking["current_holdings"] = f"{available - amount:.2f}"
    card["current_balance"] = dollars(owed - amount)
    fields = dict(
        credit_card_account_id=credit_card_account_id, user_id=user_id, payment_date=today(),
        amount=dollars(amount), status="ON_TIME", source_account_id=checking_account_id,
    )  # fmt: skip
    db.insert("payment_history", "pay", fields, "payment_id")
    return f"Paid {dollars(amount)} to {credit_card_account_id} from {checking_account_id}."


@discoverable("agent", "write")
def submit_credit_limit_increase_request_7392(
    db: BankingDB, credit_card_account_id: str, user_id: str, requested_increase_amount: int
) -> str:
    """Submit a customer's request to raise a credit card's limit.

    Args:
        credit_card_account_id: the credit card account
        user_id: the cardholder's user id
        requested_increase_amount: the increase asked for, in dollars
    """
    if requested_increase_amount <= 0:
        raise ValueError("requested_increase_amount must be positive")
    _card_account(db, credit_card_account_id, user_id)
    fields = dict(
        credit_card_account_id=credit_card_account_id, user_id=user_id,
        requested_increase_amount=requested_increase_amount, submitted_date=today(), status="PENDING",
    )  # fmt: skip
    request = db.insert("credit_limit_increase_requests", "cli", fields, "request_id")
    return f"Credit limit increase request {request['request_id']} submitted for {dollars(requested_increase_amount)}."


@discoverable("agent", "read")
def get_credit_limit_increase_history_4829(db: BankingDB, credit_card_account_id: str) -> str:
    """List the credit limit increase requests of a credit card account.

    Args:
        credit_card_account_id: the credit card account
    """
    rows = db.where("credit_limit_increase_requests", credit_card_account_id=credit_card_account_id)
    return _rows(rows, f"No credit limit increase requests for {credit_card_account_id}.")


@discoverable("agent", "read")
def get_payment_history_6183(db: BankingDB, credit_card_account_id: str, months: int) -> str:
    """Show the most recent payments of a credit card account and how many were on time.

    Args:
        credit_card_account_id: the credit card account
        months: how many of the latest monthly payments to show
    """
    if months <= 0:
        raise ValueError("months must be positive")
    payments = db.where("payment_history", credit_card_account_id=credit_card_account_id)
    payments = sorted(payments, key=lambda p: p["payment_date"][-4:] + p["payment_date"][:5])[-months:]
    on_time = sum(p.get("status") == "ON_TIME" for p in payments)
    return _rows(payments, f"No payments found for {credit_card_account_id}.") + (
        f"\n{on_time} of {len(payments)} payments on time." if payments else ""
    )


def _decide_increase(db: BankingDB, account_id: str, user_id: str, status: str, **decision: object) -> dict:
    _card_account(db, account_id, user_id)
    fields = dict(
        credit_card_account_id=account_id, user_id=user_id, decided_date=today(), status=status, **decision
    )
    return db.insert("credit_limit_increase_requests", "cli", fields, "request_id")


@discoverable("agent", "write")
def approve_credit_limit_increase_5847(
    db: BankingDB, credit_card_account_id: str, user_id: str, new_credit_limit: int
) -> str:
    """Approve a credit limit increase and set the account's new limit.

    Args:
        credit_card_account_id: the credit card account
        user_id: the cardholder's user id
        new_credit_limit: the new credit limit in dollars
    """
    if new_credit_limit <= 0:
        raise ValueError("new_credit_limit must be positive")
    _decide_increase(db, credit_card_account_id, user_id, "APPROVED", new_credit_limit=new_credit_limit)
    db.table("credit_card_accounts")[credit_card_account_id]["credit_limit"] = dollars(new_credit_limit)
    return f"Credit limit of {credit_card_account_id} raised to {dollars(new_credit_limit)}."


DENIAL_REASONS = (
    "insufficient_account_age",
    "cooldown_period_active",
    "pending_disputes",
    "pending_replacement_card",
    "past_due_balance",
    "high_utilization",
    "insufficient_payment_history",
    "requested_amount_exceeds_limit",
    "other",
)


@discoverable("agent", "write")
def deny_credit_limit_increase_5848(
    db: BankingDB, credit_card_account_id: str, user_id: str, denial_reason: str
) -> str:
    """Deny a credit limit increase, recording why.

    Args:
        credit_card_account_id: the credit card account
        user_id: the cardholder's user id
        denial_reason: one of insufficient_account_age, cooldown_period_active, pending_disputes, pending_replacement_card, past_due_balance, high_utilization, insufficient_payment_history, requested_amount_exceeds_limit, other
    """
    _one_of("denial_reason", denial_reason, DENIAL_REASONS)
    _decide_increase(db, credit_card_account_id, user_id, "DENIED", denial_reason=denial_reason)
    return f"Credit limit increase for {credit_card_account_id} denied ({denial_reason})."
