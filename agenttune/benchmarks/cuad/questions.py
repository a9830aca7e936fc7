"""Single-hop CUAD questions: one per (contract, clause category), gold = the clause quotes and their chunks.

Quotes follow the LegalBench-RAG rule: only quotes that occur exactly once in their contract are kept, and
the Agreement Date / Effective Date categories are skipped. Each question names its contract, so the agent must
search for that contract's clause: by title and parties (``style="title_parties"``) or, as people and
LegalBench-RAG often do, by title alone (``style="title"``; many contracts share a title, so this is harder).
The reference is kept in ``meta["contract"]``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

from agenttune.benchmarks.cuad.categories import DATE_CATEGORIES, QUESTIONS, SHORT_ANSWER_CATEGORIES
from agenttune.benchmarks.cuad.data import CuadContract
from agenttune.rag.chunking import Chunk, chunk_text, covering_chunks
from agenttune.rag.questions import QuestionRecord
from agenttune.rag.splits import assign_splits

QUESTION_STYLES = ("title_parties", "title")


def contract_reference(contract: CuadContract, category: str, style: str = "title_parties") -> str:
    """How a question names its contract: title and parties (or the title alone), leaving out whatever the
    question asks for."""
    if style not in QUESTION_STYLES:
        raise ValueError(f"unknown question style {style!r}; choose one of {list(QUESTION_STYLES)}")
    parties = contract.party_names[:2]
    between = f" between {' and '.join(parties)}" if parties else ""
    if category == "Document Name":
        return f"the agreement{between}" if parties else f"the agreement filed as {contract.doc_id}"
    if category == "Parties" or not parties:
        return f"the {contract.title} filed as {contract.doc_id}"
    return f"the {contract.title}{between}" if style == "title_parties" else f"the {contract.title}"


def unique_quote_spans(contract: CuadContract, category: str) -> list[tuple[str, int, int]]:
    """``(quote, start, end)`` for the category's quotes occurring exactly once in the text, in text order."""
    spans = []
    for quote in dict.fromkeys(q.strip() for q in contract.clauses.get(category, [])):
        if quote and contract.text.count(quote) == 1:
            start = contract.text.index(quote)
            spans.append((quote, start, start + len(quote)))
    return sorted(spans, key=lambda s: s[1])


def question_for(
    contract: CuadContract, category: str, chunks: Sequence[Chunk], style: str = "title_parties"
) -> QuestionRecord | None:
    """The question about ``category`` in ``contract``, or None when it has no usable quote."""
    spans = unique_quote_spans(contract, category)
    if not spans:
        return None
    gold = [c.id for _, s, e in spans for c in covering_chunks(chunks, s, e)]
    quotes = [q for q, _, _ in spans]
    short = contract.answers.get(category, "") if category in SHORT_ANSWER_CATEGORIES else ""
    short = "" if short in ("Yes", "No") else short
    answers = ["\n".join(quotes), *(quotes if len(quotes) > 1 else [])]
    if short and short.lower() in answers[0].lower():
        answers.insert(0, short)
    elif short:
        answers.append(short)
    reference = contract_reference(contract, category, style)
    return QuestionRecord(
        id="cuad1-" + hashlib.sha1(f"{contract.doc_id}|{category}".encode()).hexdigest()[:12],
        question=QUESTIONS[category].format(contract=reference),
        answer=answers[0],
        gold_quotes=quotes,
        gold_chunk_ids=list(dict.fromkeys(gold)),
        doc_ids=[contract.doc_id],
        hops=1,
        category=category,
        answer_aliases=answers[1:],
        gold_spans=[[contract.doc_id, s, e] for _, s, e in spans],
        meta={"contract": reference},
    )


def build_single_hop_questions(
    contracts: Iterable[CuadContract],
    chunk_size: int = 1000,
    chunk_overlap: int = 200,
    val_fraction: float = 0.2,
    seed: int = 0,
    skip_categories: Sequence[str] = DATE_CATEGORIES,
    style: str = "title_parties",
) -> list[QuestionRecord]:
    """Questions over ``contracts`` with gold chunk ids for this chunking, split by document (the split does not
    depend on ``style``: a question has the same id and split in both styles)."""
    records = []
    for contract in contracts:
        chunks = chunk_text(contract.doc_id, contract.text, chunk_size, chunk_overlap)
        for category in QUESTIONS:
            if category not in skip_categories and (
                record := question_for(contract, category, chunks, style)
            ):
                records.append(record)
    return assign_splits(records, val_fraction, seed, by="docs")
