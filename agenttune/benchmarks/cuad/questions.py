"""Single-hop CUAD questions: one per (contract, clause category), gold = the clause quotes and their chunks.

Quotes follow the LegalBench-RAG rule: only quotes that occur exactly once in their contract are kept, and
the Agreement Date / Effective Date categories are skipped. Each question names its contract by title and
parties, so the agent must search for that contract's clause.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

from agenttune.benchmarks.cuad.categories import DATE_CATEGORIES, QUESTIONS, SHORT_ANSWER_CATEGORIES
from agenttune.benchmarks.cuad.data import CuadContract
from agenttune.rag.chunking import Chunk, chunk_text, covering_chunks
from agenttune.rag.questions import QuestionRecord
from agenttune.rag.splits import assign_splits


def contract_reference(contract: CuadContract, category: str) -> str:
    """How a question names its contract: title and parties, leaving out whatever the question asks for."""
    parties = contract.party_names[:2]
    between = f" between {' and '.join(parties)}" if parties else ""
    if category == "Document Name":
        return f"the agreement{between}" if parties else f"the agreement filed as {contract.doc_id}"
    if category == "Parties" or not parties:
        return f"the {contract.title} filed as {contract.doc_id}"
    return f"the {contract.title}{between}"


def unique_quote_spans(contract: CuadContract, category: str) -> list[tuple[str, int, int]]:
    """``(quote, start, end)`` for the category's quotes occurring exactly once in the text, in text order."""
    spans = []
    for quote in dict.fromkeys(q.strip() for q in contract.clauses.get(category, [])):
        if quote and contract.text.count(quote) == 1:
            start = contract.text.index(quote)
            spans.append((quote, start, start + len(quote)))
    return sorted(spans, key=lambda s: s[1])


def question_for(contract: CuadContract, category: str, chunks: Sequence[Chunk]) -> QuestionRecord | None:
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
    return QuestionRecord(
        id="cuad1-" + hashlib.sha1(f"{contract.doc_id}|{category}".encode()).hexdigest()[:12],
        question=QUESTIONS[category].format(contract=contract_reference(contract, category)),
        answer=answers[0],
        gold_quotes=quotes,
        gold_chunk_ids=list(dict.fromkeys(gold)),
        doc_ids=[contract.doc_id],
        hops=1,
        category=category,
        answer_aliases=answers[1:],
        gold_spans=[[contract.doc_id, s, e] for _, s, e in spans],
    )


def build_single_hop_questions(
    contracts: Iterable[CuadContract],
    chunk_size: int = 1000,
    chunk_overlap: int = 200,
    val_fraction: float = 0.2,
    seed: int = 0,
    skip_categories: Sequence[str] = DATE_CATEGORIES,
) -> list[QuestionRecord]:
    """Questions over ``contracts`` with gold chunk ids for this chunking, split by document."""
    records = []
    for contract in contracts:
        chunks = chunk_text(contract.doc_id, contract.text, chunk_size, chunk_overlap)
        for category in QUESTIONS:
            if category not in skip_categories and (record := question_for(contract, category, chunks)):
                records.append(record)
    return assign_splits(records, val_fraction, seed, by="docs")
