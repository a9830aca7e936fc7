"""The agent's discoverable tools for deposit accounts and their debit cards (opening, closing, transfers, credits,
interest reports, transaction history, card orders, activation, freezes, PINs, limits, debit disputes) and the
discoverable human transfers. Each raises ``ValueError`` with the reason when a request breaks a rule."""

from __future__ import annotations

import json

from agenttune.benchmarks.tau2.banking.catalogue import discoverable
from agenttune.benchmarks.tau2.banking.data import BankingDB, seeded_id
from agenttune.benchmarks.tau2.banking.money import amount as parse_amount
from agenttune.benchmarks.tau2.banking.money import dollars, today

ACCOUNT_TYPES = ("checking", "savings", "business_checking", "business_savings")
OPEN = ("OPEN", "ACTIVE")


def _one_of(name: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ValueError(f"invalid {name} {value!r}; must be one of {', '.join(allowed)}")


def _account_type(account: dict) -> str:
    return str(account.get("account_type") or account.get("class") or "")


def _open_account(db: BankingDB, account_id: str, what: str = "account") -> dict:
    account = db.record("accounts", account_id, what)
    if account.get("status") not in OPEN:
        raise ValueError(f"{what} {account_id!r} is {account.get('status')}, not open")
    return account


def _credit(db: BankingDB, account: dict, value: float, kind: str, description: str) -> None:
    """Add ``value`` (negative: a debit) to an account's holdings and post the transaction."""
    account["current_holdings"] = f"{parse_amount(account.get('current_holdings')) + value:.2f}"
    fields = dict(
        account_id=account["account_id"], date=today(), description=description, amount=round(value, 2),
        type=kind, status="posted",
    )  # fmt: skip
    db.insert("bank_account_transaction_history", "btxn", fields, "transaction_id")


def _card(db: BankingDB, card_id: str) -> dict:
    return db.record("debit_cards", card_id, "debit card")


# ---- accounts -----------------------------------------------------------------------------------
@discoverable("agent", "read")
def get_all_user_accounts_by_user_id_3847(db: BankingDB, user_id: str) -> str:
    """List every bank account and credit card account of a user.

    Args:
        user_id: the user whose accounts to list
    """
    found = {
        "bank_accounts": db.where("accounts", user_id=user_id),
        "credit_card_accounts": db.where("credit_card_accounts", user_id=user_id),
    }
    if not any(found.values()):
        return f"No accounts found for user {user_id}."
    return json.dumps(found, indent=1)


@discoverable("agent", "write")
def open_bank_account_4821(db: BankingDB, user_id: str, account_type: str, account_class: str) -> str:
    """Open a new bank account for a verified customer.

    Args:
        user_id: the customer's user id
        account_type: one of checking, savings, business_checking, business_savings
        account_class: the account's product name, e.g. 'Blue Account'
    """
    _one_of("account_type", account_type, ACCOUNT_TYPES)
    db.record("users", user_id, "user")
    owned = [a for a in db.where("accounts", user_id=user_id) if a.get("status") in OPEN]
    if account_type == "checking" and sum(_account_type(a) == "checking" for a in owned) >= 4:
        raise ValueError("account eligibility requirements not met: at most 4 personal checking accounts")
    if account_type == "business_savings" and not any(_account_type(a) == "business_checking" for a in owned):
        raise ValueError("account eligibility requirements not met: a business checking account is required")
    fields = dict(
        user_id=user_id, account_type=account_type, account_class=account_class, current_holdings="0.00",
        status="OPEN", date_opened=today(),
    )  # fmt: skip
    seed = f"account:{user_id}:{account_type}:{account_class}"
    account = db.insert("accounts", "acc", fields, "account_id", record_id=seeded_id(seed))
    return f"Account {account['account_id']} opened: {account_class} ({account_type}), balance $0.00."


@discoverable("agent", "write")
def close_bank_account_7392(
    db: BankingDB,
    account_id: str,
    reason: str = "Customer requested closure",
    waive_early_closure_fee: bool = False,
) -> str:
    """Close a bank account whose balance is $0.00.

    Args:
        account_id: the account to close
        reason: why the account is closed
        waive_early_closure_fee: waive the fee for closing within the account's early-closure window
    """
    account = _open_account(db, account_id)
    balance = parse_amount(account.get("current_holdings"))
    if abs(balance) > 0.005:
        raise ValueError(f"the balance must be $0.00 before closing; it is {dollars(balance)}")
    account.update(status="CLOSED", date_closed=today(), closure_reason=reason)
    account["early_closure_fee_waived"] = waive_early_closure_fee
    return f"Account {account_id} closed."


@discoverable("agent", "write")
def transfer_funds_between_bank_accounts_7291(
    db: BankingDB, source_account_id: str, destination_account_id: str, amount: float
) -> str:
    """Move money between two of a customer's own bank accounts.

    Args:
        source_account_id: the account to take the money from
        destination_account_id: the account to put it in
        amount: the amount in dollars
    """
    if amount <= 0:
        raise ValueError("amount must be positive")
    source = _open_account(db, source_account_id, "source account")
    destination = _open_account(db, destination_account_id, "destination account")
    if source_account_id == destination_account_id:
        raise ValueError("source and destination are the same account")
    if source.get("user_id") != destination.get("user_id"):
        raise ValueError("both accounts must belong to the same customer")
    available = parse_amount(source.get("current_holdings"))
    if amount > available:
        raise ValueError(f"insufficient funds: {dollars(available)} available")
    _credit(db, source, -amount, "internal_transfer_out", f"TRANSFER TO {destination_account_id}")
    _credit(db, destination, amount, "internal_transfer_in", f"TRANSFER FROM {source_account_id}")
    return f"Transferred {dollars(amount)} from {source_account_id} to {destination_account_id}."


def _apply_credit(
    db: BankingDB, account_id: str, amount: float, credit_type: str, kind: str, types: tuple
) -> str:
    if amount <= 0:
        raise ValueError("amount must be positive")
    _one_of("credit_type", credit_type, types)
    account = _open_account(db, account_id)
    if kind not in _account_type(account):
        raise ValueError(f"account {account_id!r} is not a {kind} account")
    _credit(db, account, amount, credit_type, f"RHO-BANK CREDIT - {credit_type.upper()}")
    return f"Credited {dollars(amount)} ({credit_type}) to {account_id}."


@discoverable("agent", "write")
def apply_checking_account_credit_5829(
    db: BankingDB, account_id: str, amount: float, credit_type: str
) -> str:
    """Credit a checking account, e.g. to refund a fee.

    Args:
        account_id: the checking account
        amount: the credit in dollars
        credit_type: one of fee_refund, goodwill, error_correction
    """
    types = ("fee_refund", "goodwill", "error_correction")
    return _apply_credit(db, account_id, amount, credit_type, "checking", types)


@discoverable("agent", "write")
def apply_savings_account_credit_6831(db: BankingDB, account_id: str, amount: float, credit_type: str) -> str:
    """Credit a savings account, e.g. to correct interest paid at the wrong rate.

    Args:
        account_id: the savings account
        amount: the credit in dollars
        credit_type: one of interest_correction, fee_refund, goodwill
    """
    types = ("interest_correction", "fee_refund", "goodwill")
    return _apply_credit(db, account_id, amount, credit_type, "saving", types)  # the data's class is "saving"


@discoverable("agent", "write")
def submit_interest_discrepancy_report_7294(
    db: BankingDB,
    account_id: str,
    user_id: str,
    expected_apy: float,
    actual_apy: float,
    amount_difference: float,
) -> str:
    """Report that an account earned interest at a different rate than it should have.

    Args:
        account_id: the account
        user_id: the account holder's user id
        expected_apy: the APY the account should have earned, in percent
        actual_apy: the APY it earned, in percent
        amount_difference: the interest owed, in dollars
    """
    account = db.record("accounts", account_id, "account")
    db.record("users", user_id, "user")
    if account.get("user_id") != user_id:
        raise ValueError(f"account {account_id!r} does not belong to user {user_id!r}")
    fields = dict(
        account_id=account_id, user_id=user_id, expected_apy=expected_apy, actual_apy=actual_apy,
        amount_difference=amount_difference, submitted_date=today(), status="SUBMITTED",
    )  # fmt: skip
    report = db.insert("interest_discrepancy_reports", "idr", fields, "report_id")
    return f"Interest discrepancy report {report['report_id']} submitted ({dollars(amount_difference)})."


@discoverable("agent", "read")
def get_bank_account_transactions_9173(db: BankingDB, account_id: str) -> str:
    """List a bank account's transactions, newest first.

    Args:
        account_id: the bank account
    """
    db.record("accounts", account_id, "account")
    rows = db.where("bank_account_transaction_history", account_id=account_id)
    rows.sort(key=lambda r: (r["date"][-4:] + r["date"][:5], r["transaction_id"]), reverse=True)
    return json.dumps(rows, indent=1) if rows else f"No transactions found for account {account_id}."


# ---- debit cards --------------------------------------------------------------------------------
@discoverable("agent", "read")
def get_debit_cards_by_account_id_7823(db: BankingDB, account_id: str) -> str:
    """List the debit cards linked to a checking account.

    Args:
        account_id: the checking account
    """
    rows = db.where("debit_cards", account_id=account_id)
    return json.dumps(rows, indent=1) if rows else f"No debit cards found for account {account_id}."


@discoverable("agent", "write")
def order_debit_card_5739(
    db: BankingDB,
    account_id: str,
    user_id: str,
    delivery_option: str,
    delivery_fee: float,
    card_design: str,
    design_fee: float,
    shipping_address: str,
    excess_replacement_fee: float | None = None,
) -> str:
    """Order a debit card for a checking account; the fees are taken from the account.

    Args:
        account_id: the checking account the card is for
        user_id: the account holder's user id
        delivery_option: one of STANDARD, EXPEDITED, RUSH
        delivery_fee: the delivery fee in dollars
        card_design: one of CLASSIC, PREMIUM, CUSTOM
        design_fee: the design fee in dollars
        shipping_address: where to ship the card
        excess_replacement_fee: the fee for a replacement beyond the yearly allowance, if any
    """
    _one_of("delivery_option", delivery_option, ("STANDARD", "EXPEDITED", "RUSH"))
    _one_of("card_design", card_design, ("CLASSIC", "PREMIUM", "CUSTOM"))
    account = _open_account(db, account_id)
    if account.get("user_id") != user_id:
        raise ValueError(f"account {account_id!r} does not belong to user {user_id!r}")
    if "checking" not in _account_type(account):
        raise ValueError(
            f"debit cards are only for checking accounts; {account_id!r} is {_account_type(account)}"
        )
    if any(c.get("status") == "ACTIVE" for c in db.where("debit_cards", account_id=account_id)):
        raise ValueError(f"account {account_id!r} already has an active debit card")
    fees = delivery_fee + design_fee + (excess_replacement_fee or 0.0)
    if fees > parse_amount(account.get("current_holdings")):
        raise ValueError(f"insufficient funds for the fees ({dollars(fees)})")
    fields = dict(
        account_id=account_id, user_id=user_id, delivery_option=delivery_option, card_design=card_design,
        shipping_address=shipping_address, total_fee=round(fees, 2), order_date=today(), status="PENDING",
    )  # fmt: skip
    order_id = "dcord_" + seeded_id(f"debit_card_order:{account_id}:{user_id}:{delivery_option}", 12)
    order = db.insert("debit_card_orders", "dcord", fields, "order_id", record_id=order_id)
    if fees > 0:
        _credit(db, account, -fees, "card_fee", f"DEBIT CARD ORDER {order['order_id']}")
    _issue_card(db, account_id, user_id, order["order_id"])
    return (
        f"Debit card ordered ({order['order_id']}, {delivery_option}, {card_design}); fees {dollars(fees)}."
    )


@discoverable("agent", "write")
def activate_debit_card_8292(
    db: BankingDB, card_id: str, last_4_digits: str, expiration_date: str, cvv: str, pin: str
) -> str:
    """Activate a replacement debit card (one issued after a lost, stolen or fraud-suspected card).

    Args:
        card_id: the debit card to activate
        last_4_digits: last 4 digits of the card number
        expiration_date: the card's expiration, MM/YY
        cvv: the 3-digit code on the back
        pin: the 4-digit PIN the customer chose
    """
    card = _card(db, card_id)
    if card.get("status") != "PENDING":
        raise ValueError(
            f"debit card {card_id!r} is {card.get('status')}; only a PENDING card can be activated"
        )
    if card.get("issue_reason") not in ("lost", "stolen", "fraud"):
        raise ValueError(
            f"debit card {card_id!r} is not a replacement card; use the activation tool for its kind"
        )
    expiry = str(card.get("expiration_date", ""))
    expected = f"{expiry[:2]}/{expiry[-2:]}" if len(expiry) == 10 else expiry
    if (last_4_digits, cvv, expiration_date) != (card.get("last_4_digits"), card.get("cvv"), expected):
        raise ValueError("the card details do not match")
    _check_pin(pin)
    for other in db.where("debit_cards", account_id=card.get("account_id"), status="ACTIVE"):
        other.update(status="DEACTIVATED", deactivated_date=today())
    card.update(status="ACTIVE", activated_date=today())
    return f"Debit card {card_id} activated."


REPLACED_BECAUSE = {"lost": "lost", "stolen": "stolen", "fraud_suspected": "fraud"}


def _issue_card(db: BankingDB, account_id: str, user_id: str, order_id: str) -> None:
    """A PENDING card for an order, with its number, CVV and expiry (4 years on) derived from its id as the data
    does; a replacement of a card closed as lost, stolen or fraud-suspected carries that reason."""
    card_id = "dbc_" + seeded_id(f"debit_card:{account_id}:{user_id}:{today()}", 12)
    digits = lambda text, n: "".join(c for c in text if c.isdigit())[:n].zfill(n)  # noqa: E731
    month, _, year = today().split("/")
    last_day = {"02": "28", "04": "30", "06": "30", "09": "30", "11": "30"}.get(month, "31")
    closed = [c for c in db.where("debit_cards", account_id=account_id) if c.get("status") == "CLOSED"]
    user = db.table("users").get(user_id, {})
    card = dict(
        account_id=account_id, user_id=user_id, cardholder_name=str(user.get("name", "CARDHOLDER")).upper(),
        last_4_digits=digits(seeded_id(f"card_details:{card_id}:last4", 8), 4),
        cvv=digits(seeded_id(f"card_details:{card_id}:cvv", 6), 3), status="PENDING", issue_date=today(),
        expiration_date=f"{month}/{last_day}/{int(year) + 4}",
        issue_reason=REPLACED_BECAUSE.get(closed[0].get("closure_reason"), "reissue") if closed else "new_account",
        order_id=order_id,
    )  # fmt: skip
    db.insert("debit_cards", "dbc", card, "card_id", record_id=card_id)


def _check_pin(pin: str) -> None:
    if (
        not (len(pin) == 4 and pin.isdigit())
        or len(set(pin)) == 1
        or pin in "0123456789"
        or pin in "9876543210"
    ):
        raise ValueError("the PIN must be 4 digits, not all the same and not a sequence")


@discoverable("agent", "write")
def close_debit_card_4721(db: BankingDB, card_id: str, reason: str) -> str:
    """Close a debit card.

    Args:
        card_id: the debit card
        reason: one of lost, stolen, fraud_suspected, damaged, no_longer_needed, account_closing
    """
    reasons = ("lost", "stolen", "fraud_suspected", "damaged", "no_longer_needed", "account_closing")
    _one_of("reason", reason, reasons)
    card = _card(db, card_id)
    if card.get("status") not in ("ACTIVE", "PENDING", "FROZEN"):
        raise ValueError(f"debit card {card_id!r} is {card.get('status')} and cannot be closed")
    card.update(status="CLOSED", closed_date=today(), closure_reason=reason)
    return f"Debit card {card_id} closed ({reason})."


@discoverable("agent", "write")
def freeze_debit_card_3892(db: BankingDB, card_id: str) -> str:
    """Freeze an active debit card (temporarily blocks it).

    Args:
        card_id: the debit card
    """
    card = _card(db, card_id)
    if card.get("status") != "ACTIVE":
        raise ValueError(f"debit card {card_id!r} is {card.get('status')}; only an ACTIVE card can be frozen")
    card.update(status="FROZEN", frozen_date=today())
    return f"Debit card {card_id} frozen."


@discoverable("agent", "write")
def unfreeze_debit_card_3893(db: BankingDB, card_id: str) -> str:
    """Unfreeze a frozen debit card.

    Args:
        card_id: the debit card
    """
    card = _card(db, card_id)
    if card.get("status") != "FROZEN":
        raise ValueError(f"debit card {card_id!r} is {card.get('status')}, not FROZEN")
    card.update(status="ACTIVE", unfrozen_date=today())
    return f"Debit card {card_id} unfrozen."


@discoverable("agent", "write")
def clear_debit_card_fraud_alert_4892(db: BankingDB, card_id: str, reason: str) -> str:
    """Clear a customer-verified fraud alert or a velocity block on a debit card.

    Args:
        card_id: the debit card
        reason: customer_verified (a fraud alert) or velocity_clear (a velocity block)
    """
    _one_of("reason", reason, ("customer_verified", "velocity_clear"))
    card = _card(db, card_id)
    if reason == "velocity_clear":
        if not card.get("velocity_blocked"):
            raise ValueError(f"debit card {card_id!r} has no velocity block")
        card.update(velocity_blocked=False, velocity_cleared_date=today())
    else:
        if not card.get("fraud_alert_active"):
            raise ValueError(f"debit card {card_id!r} has no active fraud alert")
        if card.get("alert_source") == "bank_initiated":
            raise ValueError(
                "a bank-initiated fraud alert cannot be cleared here; transfer to the security team"
            )
        card.update(fraud_alert_active=False, alert_source=None, fraud_alert_cleared_date=today())
    return f"Block on debit card {card_id} cleared ({reason})."


@discoverable("agent", "write")
def reset_debit_card_pin_6284(db: BankingDB, card_id: str, last_4_digits: str, new_pin: str) -> str:
    """Reset a forgotten debit card PIN.

    Args:
        card_id: the debit card
        last_4_digits: last 4 digits of the card number
        new_pin: the new 4-digit PIN
    """
    card = _card(db, card_id)
    if card.get("last_4_digits") != last_4_digits:
        raise ValueError("the last 4 digits do not match the card")
    if card.get("status") not in ("ACTIVE", "FROZEN"):
        raise ValueError(f"debit card {card_id!r} is {card.get('status')}")
    _check_pin(new_pin)
    card.update(pin_reset_date=today())
    return f"PIN of debit card {card_id} reset."


@discoverable("agent", "write")
def request_temporary_debit_card_limit_increase_8374(
    db: BankingDB, card_id: str, limit_type: str, new_limit: int
) -> str:
    """Raise a debit card's daily ATM or purchase limit for the next 24 hours.

    Args:
        card_id: the debit card
        limit_type: atm or purchase
        new_limit: the temporary daily limit in dollars
    """
    _one_of("limit_type", limit_type, ("atm", "purchase"))
    card = _card(db, card_id)
    if card.get("status") != "ACTIVE":
        raise ValueError(f"debit card {card_id!r} is {card.get('status')}, not ACTIVE")
    if new_limit <= 0:
        raise ValueError("new_limit must be positive")
    card[f"temporary_{limit_type}_limit"] = new_limit
    card["temporary_limit_date"] = today()
    return f"Temporary {limit_type} limit of debit card {card_id} set to {dollars(new_limit)} for 24 hours."


DEBIT_DISPUTE_CATEGORIES = (
    "unauthorized_transaction",
    "atm_cash_discrepancy",
    "atm_deposit_not_credited",
    "duplicate_charge",
    "incorrect_amount",
    "goods_services_not_received",
    "recurring_charge_after_cancellation",
    "card_present_fraud",
    "card_not_present_fraud",
)
DEBIT_TRANSACTION_TYPES = (
    "pin_purchase",
    "signature_purchase",
    "online_purchase",
    "atm_withdrawal",
    "atm_deposit",
    "recurring_payment",
    "person_to_person",
)


@discoverable("agent", "write")
def file_debit_card_transaction_dispute_6281(
    db: BankingDB,
    transaction_id: str,
    account_id: str,
    card_id: str,
    user_id: str,
    dispute_category: str,
    transaction_date: str,
    discovery_date: str,
    disputed_amount: float,
    transaction_type: str,
    card_in_possession: bool,
    pin_compromised: str,
    contacted_merchant: bool,
    police_report_filed: bool,
    written_statement_provided: bool,
    provisional_credit_eligible: bool,
    customer_max_liability_amount: float,
    card_action: str,
) -> str:
    """File a Regulation E dispute of a debit card transaction.

    Args:
        transaction_id: the disputed bank account transaction
        account_id: the checking account
        card_id: the debit card used
        user_id: the account holder's user id
        dispute_category: one of unauthorized_transaction, atm_cash_discrepancy, atm_deposit_not_credited, duplicate_charge, incorrect_amount, goods_services_not_received, recurring_charge_after_cancellation, card_present_fraud, card_not_present_fraud
        transaction_date: date of the transaction (MM/DD/YYYY)
        discovery_date: date the customer found it (MM/DD/YYYY)
        disputed_amount: the amount disputed, in dollars
        transaction_type: one of pin_purchase, signature_purchase, online_purchase, atm_withdrawal, atm_deposit, recurring_payment, person_to_person
        card_in_possession: whether the customer still has the card
        pin_compromised: one of no, yes_shared, yes_observed, unknown
        contacted_merchant: whether the customer contacted the merchant
        police_report_filed: whether a police report was filed
        written_statement_provided: whether the customer gave a written statement
        provisional_credit_eligible: whether provisional credit applies
        customer_max_liability_amount: the customer's liability cap under Regulation E, in dollars
        card_action: one of keep_active, freeze_pending_investigation, close_and_reissue
    """
    _one_of("dispute_category", dispute_category, DEBIT_DISPUTE_CATEGORIES)
    _one_of("transaction_type", transaction_type, DEBIT_TRANSACTION_TYPES)
    _one_of("pin_compromised", pin_compromised, ("no", "yes_shared", "yes_observed", "unknown"))
    _one_of("card_action", card_action, ("keep_active", "freeze_pending_investigation", "close_and_reissue"))
    if disputed_amount <= 0:
        raise ValueError("disputed_amount must be positive")
    transaction = db.record("bank_account_transaction_history", transaction_id, "transaction")
    if transaction.get("account_id") != account_id:
        raise ValueError(f"transaction {transaction_id!r} is not on account {account_id!r}")
    _card(db, card_id)  # the card action is recorded; the card tools carry it out
    fields = dict(
        transaction_id=transaction_id, account_id=account_id, card_id=card_id, user_id=user_id,
        dispute_category=dispute_category, transaction_date=transaction_date, discovery_date=discovery_date,
        disputed_amount=disputed_amount, transaction_type=transaction_type, card_in_possession=card_in_possession,
        pin_compromised=pin_compromised, contacted_merchant=contacted_merchant,
        police_report_filed=police_report_filed, written_statement_provided=written_statement_provided,
        provisional_credit_eligible=provisional_credit_eligible,
        customer_max_liability_amount=customer_max_liability_amount, card_action=card_action,
        submitted_at=today(), status="SUBMITTED",
    )  # fmt: skip
    dispute = db.insert("debit_card_disputes", "ddsp", fields, "dispute_id")
    return f"Debit card dispute {dispute['dispute_id']} filed for {dollars(disputed_amount)} ({dispute_category})."


@discoverable("agent", "read")
def get_debit_dispute_status_7483(db: BankingDB, user_id: str) -> str:
    """List a user's debit card disputes and their status.

    Args:
        user_id: the user
    """
    rows = db.where("debit_card_disputes", user_id=user_id)
    return json.dumps(rows, indent=1) if rows else f"No debit card disputes found for user {user_id}."


# ---- transfers the knowledge base prescribes for particular situations ----------------------------
@discoverable("agent", "generic")
def initial_transfer_to_human_agent_0218(db: BankingDB) -> str:
    """Start a transfer to a human agent in the general servicing queue."""
    return "Transfer initiated (queue 0218). Now call transfer_to_human_agents to hand the customer over."


@discoverable("agent", "generic")
def initial_transfer_to_human_agent_1822(db: BankingDB) -> str:
    """Start a transfer to a human agent in the account specialist queue."""
    return "Transfer initiated (queue 1822). Now call transfer_to_human_agents to hand the customer over."


@discoverable("agent", "generic")
def emergency_credit_bureau_incident_transfer_1114(db: BankingDB) -> str:
    """Start an emergency transfer for a credit bureau reporting incident."""
    return "Emergency credit bureau incident transfer initiated (queue 1114)."
