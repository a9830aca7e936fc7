"""A KYC-style input set and toolset: applicant records with personal data, and the checks a reviewer runs.

The applicants are synthetic (made up here, no real person): each has a name, date of birth, e-mail, phone,
IBAN, country, document number and expiry, and a declared yearly income and deposit. The tools are deterministic
and written to be called by a workflow's ``tool`` nodes (``kyc.check_document``, ...); each returns a JSON
object.
"""

from __future__ import annotations

import datetime as dt
import re

# Countries a sanctions screen flags (an illustrative list, not a legal one).
HIGH_RISK_COUNTRIES = frozenset({"KP", "IR", "SY"})
WATCHLIST = frozenset({"Ivan Petrovich Sidorov", "Mara Quell"})
REFERENCE_DATE = dt.date(
    2026, 1, 1
)  # the checks are reproducible: ages and expiries are computed at this date

APPLICANTS = [
    {
        "id": "kyc-0",
        "name": "Alice Martin",
        "date_of_birth": "1988-04-12",
        "email": "alice.martin@example.com",
        "phone": "+33 6 12 34 56 78",
        "iban": "FR76 3000 6000 0112 3456 7890 189",
        "country": "FR",
        "document_number": "FR1234567",
        "document_expiry": "2029-05-01",
        "yearly_income": 52000,
        "deposit": 8000,
    },
    {
        "id": "kyc-1",
        "name": "Mara Quell",
        "date_of_birth": "1975-09-30",
        "email": "mquell@example.org",
        "phone": "+44 20 7946 0958",
        "iban": "GB33 BUKB 2020 1555 5555 55",
        "country": "GB",
        "document_number": "GB7654321",
        "document_expiry": "2027-11-15",
        "yearly_income": 90000,
        "deposit": 20000,
    },
    {
        "id": "kyc-2",
        "name": "Tomas Berg",
        "date_of_birth": "2009-02-03",
        "email": "tomas.berg@example.net",
        "phone": "+46 70 123 45 67",
        "iban": "SE45 5000 0000 0583 9825 7466",
        "country": "SE",
        "document_number": "SE0001112",
        "document_expiry": "2025-06-30",
        "yearly_income": 4000,
        "deposit": 15000,
    },
    {
        "id": "kyc-3",
        "name": "Lena Vogel",
        "date_of_birth": "1992-12-01",
        "email": "lena.vogel@example.de",
        "phone": "+49 30 901820",
        "iban": "DE89 3704 0044 0532 0130 00",
        "country": "DE",
        "document_number": "DE55X21",
        "document_expiry": "2031-01-20",
        "yearly_income": 61000,
        "deposit": 70000,
    },
]


def applicants() -> list[dict]:
    """The applicant records, one case each (copies: a workflow cannot change the originals)."""
    return [dict(record) for record in APPLICANTS]


def check_document(document_number: str, document_expiry: str) -> dict:
    """Check an identity document's number format and expiry.

    Args:
        document_number: The document number: two country letters then 7 digits.
        document_expiry: The expiry date, YYYY-MM-DD.
    """
    well_formed = re.fullmatch(r"[A-Z]{2}\d{7}", document_number) is not None
    expired = dt.date.fromisoformat(document_expiry) < REFERENCE_DATE
    return {"valid": well_formed and not expired, "well_formed": well_formed, "expired": expired}


def screen_sanctions(name: str, country: str) -> dict:
    """Screen a person against the watchlist and the high-risk country list.

    Args:
        name: The person's full name.
        country: The ISO 3166 two-letter country code.
    """
    return {"watchlist_hit": name in WATCHLIST, "high_risk_country": country in HIGH_RISK_COUNTRIES}


def age_on_reference_date(date_of_birth: str) -> dict:
    """A person's age in whole years on the reference date.

    Args:
        date_of_birth: The date of birth, YYYY-MM-DD.
    """
    born = dt.date.fromisoformat(date_of_birth)
    had_birthday = (REFERENCE_DATE.month, REFERENCE_DATE.day) >= (born.month, born.day)
    return {"years": REFERENCE_DATE.year - born.year - (not had_birthday)}


TOOLS = [check_document, screen_sanctions, age_on_reference_date]
