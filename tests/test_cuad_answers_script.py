"""scripts/cuad_answers.py: where an answer was copied from, whitespace runs matched as one space."""

from __future__ import annotations

import importlib.util
from pathlib import Path

PATH = Path(__file__).resolve().parents[1] / "scripts" / "cuad_answers.py"
spec = importlib.util.spec_from_file_location("cuad_answers", PATH)
script = importlib.util.module_from_spec(spec)
spec.loader.exec_module(script)

QUESTION = "What is the title of the agreement between Acme Corp. and Beta LLC?"
SHOWN = ["[1] doc_id: A | chars 0-80\nSUPPLY AGREEMENT between Acme Corp. and\n\nBeta LLC, dated May 1."]


def test_an_answer_is_placed_in_a_result_before_the_question():
    assert script.answer_origin("SUPPLY AGREEMENT", QUESTION, SHOWN) == "result"
    # across the line breaks
    assert script.answer_origin("Acme Corp. and Beta LLC", QUESTION, SHOWN) == "result"
    assert script.answer_origin("the agreement between Acme Corp.", QUESTION, SHOWN) == "question"
    assert script.answer_origin("Answer the question", QUESTION, SHOWN) == "neither"
    assert script.answer_origin("", QUESTION, SHOWN) == "none"
