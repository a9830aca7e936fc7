"""A scripted retrieval teacher for distillation, and the checks its trajectories must pass to be kept.

The teacher is privileged the way an oracle is: it knows each question's gold answer and evidence, so it
recognises the clause when a result shows it, but it chooses what to search from the question alone and can only
answer with what its searches showed. It searches in steps, as a person would (:func:`search_plan`):

1. ``search`` the whole collection with the question itself or its content words (one style per question, fixed
   by a hash of its id, so that a student distilled from it has more than one way to search);
2. when no result shows the clause, find the contract: ``find_documents`` with its name as the question gives
   it (a question naming the contract's file, "filed as <doc_id>", goes straight to that document);
3. ``search_document`` in the contract with the clause's typical wording (:data:`CLAUSE_WORDING`: "governed by
   and construed in accordance with the laws of the State", not the question's "which law governs"). When the
   question names the parties (one contract fits), that contract is searched again with the question's own
   words. When it names a title alone (many contracts share one), the teacher first searches the whole corpus
   for the title and the clause's wording (the clause of several contracts of that title at once), then looks
   the title up and searches the contracts listed, one search each.

With a budget of two calls (or without the document tools) the second call searches the whole corpus again, for
the contract's name and the clause's typical wording.

It stops at the first result that shows gold evidence (a passage overlapping a gold quote, read from the
result's ``chars`` ranges) or when its call budget is spent, and answers with the gold quote when a shown passage
holds it whole, else with the sentence of all shown passages that has the highest token F1 with the gold
answer. It sees exactly what a student sees (the same harness), so a kept trajectory is one a student could
imitate. Checks (:func:`check_trajectory`):

- schema: no ERROR event, at least one well-formed tool call and a final answer;
- grounding: the answer occurs verbatim in a tool result the episode was shown;
- answer: token F1 with the gold answer at least ``min_f1``.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence
from typing import Any

from agenttune.engines.extractive import collapse
from agenttune.events.projections.evaluator import evaluator_input
from agenttune.events.schema import EventKind, EventLog
from agenttune.rag import spans
from agenttune.rag.questions import QuestionRecord
from agenttune.rewards.answer import extract_answer, token_f1
from agenttune.rewards.grounding import content_word_list

HIT_HEADER = re.compile(r"^\[\d+\] doc_id: (.*?) \| chars (\d+)-(\d+)$", re.MULTILINE)
LISTED_DOC = re.compile(r"^\[\d+\] doc_id: (.*?)(?: \| .*)?$", re.MULTILINE)
SENTENCE_END = re.compile(r"(?<=[.;:])\s+|\n\s*\n")
QUERY_STYLES = ("question", "keywords")
FILED_AS = re.compile(r"\bfiled as (\S.*)$")  # a question naming the contract by its file: its doc_id
# How a clause of each CUAD category is typically worded (common contract drafting, written for the teacher's
# reformulations; the category's name alone often misses the clause: "Parties", "Rofr/Rofo/Rofn").
CLAUSE_WORDING = {
    "Document Name": "agreement",
    "Parties": "agreement made and entered into by and between corporation",
    "Expiration Date": "initial term shall commence and continue in effect until expire years",
    "Renewal Term": "automatically renew for successive renewal terms of one year",
    "Notice Period To Terminate Renewal": (
        "renew unless either party gives written notice of non-renewal days prior to the end of the term"
    ),
    "Governing Law": "governed by and construed in accordance with the laws of the State",
    "Most Favored Nation": "terms no less favorable than those offered to any other customer",
    "Competitive Restriction Exception": (
        "notwithstanding the foregoing nothing shall prevent restriction shall not apply"
    ),
    "Non-Compete": "shall not directly or indirectly engage in any competing business",
    "Exclusivity": "exclusive right sole and exclusive shall not appoint any other",
    "No-Solicit Of Customers": "shall not solicit or induce any customer",
    "No-Solicit Of Employees": "shall not solicit or hire any employee of the other party",
    "Non-Disparagement": "shall not make any disparaging statements disparage",
    "Termination For Convenience": (
        "may terminate this agreement at any time for any reason upon days prior written notice"
    ),
    "Rofr/Rofo/Rofn": "right of first refusal first offer first negotiation",
    "Change Of Control": (
        "change of control merger acquisition sale of all or substantially all of its assets"
    ),
    "Anti-Assignment": (
        "shall not assign or transfer this agreement without the prior written consent of the other party"
    ),
    "Revenue/Profit Sharing": "royalty percentage of net sales revenue profits",
    "Price Restrictions": "prices shall not increase price",
    "Minimum Commitment": "minimum purchase quantity order annual minimum",
    "Volume Restriction": "exceed maximum volume additional fee",
    "Ip Ownership Assignment": (
        "shall be the sole and exclusive property hereby assigns all right title and interest"
    ),
    "Joint Ip Ownership": "jointly owned joint ownership of intellectual property",
    "License Grant": "hereby grants a non-exclusive license to use",
    "Non-Transferable License": "non-transferable non-sublicensable license",
    "Affiliate License-Licensor": "licensor and its affiliates grant license",
    "Affiliate License-Licensee": "license to licensee and its affiliates",
    "Unlimited/All-You-Can-Eat-License": "unlimited enterprise-wide license any number of users",
    "Irrevocable Or Perpetual License": "perpetual irrevocable license",
    "Source Code Escrow": "source code escrow agent deposit",
    "Post-Termination Services": "upon termination or expiration shall survive",
    "Audit Rights": "audit inspect books and records during normal business hours",
    "Uncapped Liability": (
        "limitation of liability shall not apply to gross negligence willful misconduct indemnification"
    ),
    "Cap On Liability": "in no event shall liability exceed the amounts paid limitation of liability",
    "Liquidated Damages": "liquidated damages termination fee",
    "Warranty Duration": "warrants for a period of months from the date of delivery warranty period",
    "Insurance": "shall maintain insurance coverage liability insurance policy",
    "Covenant Not To Sue": "shall not contest or challenge the validity",
    "Third Party Beneficiary": "no third party beneficiaries",
}


def teacher_query(question: QuestionRecord, styles: Sequence[str] = QUERY_STYLES) -> str:
    """The teacher's first search query for ``question``: its text, or its content words, chosen by a hash of
    its id.

    >>> q = QuestionRecord("q1", "Who may terminate the lease?", "", [], [], [], 1, "Termination")
    >>> teacher_query(q, ["keywords"]), teacher_query(q, ["question"])
    ('terminate lease', 'Who may terminate the lease?')
    """
    style = styles[zlib.crc32(question.id.encode()) % len(styles)]
    if style == "keywords":
        return " ".join(content_word_list(question.question)) or question.question
    if style == "question":
        return question.question
    raise ValueError(f"unknown query style {style!r}; known: {QUERY_STYLES}")


def clause_query(question: QuestionRecord) -> str:
    """The question's content words that do not name its contract (all of them when it names none).

    >>> q = QuestionRecord("q1", "Which law governs the Supply Agreement between Acme and Beta?", "", [], [], [],
    ...                    1, "Governing Law", meta={"contract": "the Supply Agreement between Acme and Beta"})
    >>> clause_query(q)
    'law governs'
    """
    name = set(content_word_list(question.meta.get("contract", "")))
    words = [w for w in content_word_list(question.question) if w not in name]
    return " ".join(words) or question.question


def passages(results: Sequence[str]) -> list[tuple[str, int, int, str]]:
    """``(doc_id, start, end, text)`` of every passage in search results (a result lists them under headers)."""
    found = []
    for result in results:
        heads = list(HIT_HEADER.finditer(result))
        for head, following in zip(heads, [*heads[1:], None], strict=False):
            text = result[head.end() : following.start() if following else len(result)].strip()
            found.append((head.group(1), int(head.group(2)), int(head.group(3)), text))
    return found


def clause_wording(question: QuestionRecord) -> str:
    """How a clause of the question's category is typically worded (:data:`CLAUSE_WORDING`), else the category's
    name as words.

    >>> q = QuestionRecord("q1", "Which law governs the lease?", "", [], [], [], 1, "Governing Law")
    >>> clause_wording(q)
    'governed by and construed in accordance with the laws of the State'
    """
    category = question.category
    return CLAUSE_WORDING.get(category) or " ".join(content_word_list(category.replace("-", " "))) or category


def search_plan(
    question: QuestionRecord,
    listed: Sequence[str],
    tools: Sequence[str],
    styles: Sequence[str] = QUERY_STYLES,
    max_calls: int = 5,
) -> list[tuple[str, dict[str, str]]]:
    """The teacher's calls in order, ``(tool, arguments)``, given the contracts ``find_documents`` listed.

    A question naming the contract's file goes straight to it; one naming a title is looked up with
    ``find_documents``. In a contract the teacher searches the clause's typical wording
    (:func:`clause_wording`); when the question also names the parties (one contract matches), it searches that
    contract again with the question's own words. A title alone is shared by many contracts: the teacher first
    searches the whole corpus for the title and the clause's wording (up to ``top_k`` contracts of that title
    at once), then the contracts listed, one search each. Without the document tools, a question naming no contract or a budget under 3
    calls (too few to find a contract and search it), a miss is searched again over the whole corpus for the
    contract's name and the clause's wording."""
    plan = [("search", {"query": teacher_query(question, styles)})]
    name = question.meta.get("contract", "").removeprefix("the ")
    wording = clause_wording(question)
    if not name or max_calls < 3 or not {"find_documents", "search_document"} <= set(tools):
        return plan + [("search", {"query": f"{name} {wording}".strip()})]
    filed = FILED_AS.search(name)
    one_contract = bool(filed) or " between " in name
    if filed:
        candidates = [filed.group(1)]
    else:
        if not one_contract:  # a title alone: its clause in many contracts of that title at once
            plan.append(("search", {"query": f"{name} {wording}"}))
        plan.append(("find_documents", {"name": name}))
        candidates = list(listed)
    for rank, doc_id in enumerate(candidates):
        plan.append(("search_document", {"doc_id": doc_id, "query": wording}))
        if rank == 0 and one_contract:
            plan.append(("search_document", {"doc_id": doc_id, "query": clause_query(question)}))
    return plan


def best_sentence(texts: Sequence[str], gold: Sequence[str]) -> str:
    """The sentence of ``texts`` with the highest token F1 against ``gold`` ('' if none shares a word)."""
    sentences = [s.strip() for text in texts for s in SENTENCE_END.split(text) if s.strip()]
    scored = [(token_f1(s, gold), -i, s) for i, s in enumerate(sentences)]
    best = max(scored, default=(0.0, 0, ""))
    return best[2] if best[0] > 0 else ""


def best_answer(texts: Sequence[str], gold: Sequence[str]) -> str:
    """A gold answer itself when a shown passage holds it whole (the clause copied as it stands; with its
    whitespace collapsed when the passages are shown so, ``harness.snippet_collapse_whitespace``), else
    :func:`best_sentence`."""
    quotes = [quote for answer in gold if answer for quote in (answer, collapse(answer))]
    whole = next((quote for quote in quotes if any(quote in text for text in texts)), None)
    return whole or best_sentence(texts, gold)


class RetrievalTeacher:
    """The teacher policy for ``ScriptedEngine(RetrievalTeacher(questions), tokenizer)``: search in steps until a
    result shows the evidence or ``max_calls`` calls are spent, then answer."""

    def __init__(
        self,
        questions: Sequence[QuestionRecord],
        query_styles: Sequence[str] = QUERY_STYLES,
        max_calls: int = 5,
    ) -> None:
        self.questions = {q.question: q for q in questions}
        if len(self.questions) < len(questions):
            same = next(q.question for q in questions if self.questions[q.question] is not q)
            raise ValueError(
                f"the teacher knows a question by its text, and more than one question reads {same!r}; "
                "give each its own teacher (or play them in rounds of distinct texts)"
            )
        self.query_styles = query_styles
        self.max_calls = max_calls

    def __call__(
        self, conversation: list[dict[str, Any]], tools: list[dict[str, Any]] | None
    ) -> dict[str, Any]:
        question = self.questions[next(m["content"] for m in conversation if m["role"] == "user")]
        results = [m["content"] for m in conversation if m["role"] == "tool"]
        shown = passages(results)
        found = spans.touches(question.gold_spans, [(d, s, e) for d, s, e, _ in shown])
        names = [t["function"]["name"] for t in tools or []]
        listed = [m.group(1) for r in results if not HIT_HEADER.search(r) for m in LISTED_DOC.finditer(r)]
        plan = search_plan(question, listed, names, self.query_styles, self.max_calls)
        if not found and len(results) < min(len(plan), self.max_calls):
            name, arguments = plan[len(results)]
            call = {"type": "function", "function": {"name": name, "arguments": arguments}}
            return {"role": "assistant", "content": "", "tool_calls": [call]}
        answer = best_answer([text for *_, text in shown], [question.answer, *question.answer_aliases])
        return {
            "role": "assistant",
            "content": f"<answer>{answer}</answer>" if answer else "I could not find it.",
        }


def check_trajectory(log: EventLog, question: QuestionRecord, min_f1: float = 0.3) -> str:
    """'' when the trajectory passes every check, else the name of the first failed check."""
    record = evaluator_input(log)
    answer = extract_answer(record["final_answer"])
    if any(e.kind == EventKind.ERROR for e in log.events) or not record["tool_calls"] or not answer:
        return "schema"
    shown = [
        e.payload.content for e in log.events if e.kind == EventKind.TOOL_RESULT and not e.payload.is_error
    ]
    if not any(answer in text for text in shown):
        return "grounding"
    if token_f1(answer, [question.answer, *question.answer_aliases]) < min_f1:
        return "answer"
    return ""
