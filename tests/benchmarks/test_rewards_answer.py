import pytest

from agenttune.rewards.answer import exact_match, extract_answer, normalize_answer, token_f1
from agenttune.rewards.cuad_search import answer_exact_match, answer_f1, evidence_coverage, search_frugality

GOLD = "This Agreement shall be governed by the laws of the State of Nevada."


def test_normalisation_and_extraction():
    assert normalize_answer("  The LAWS, of Nevada!") == "laws of nevada"
    assert extract_answer("<answer>a</answer> text <ANSWER>\nb\n</ANSWER>") == "b"
    assert extract_answer("<answer>unterminated") == ""


@pytest.mark.parametrize("empty", ["", "   ", "<answer></answer>", "the a an", "..."])
def test_an_empty_prediction_never_scores(empty):
    assert exact_match(extract_answer(empty) or empty, "") == 0.0
    assert token_f1(empty, GOLD) == 0.0 and exact_match(empty, [GOLD, "Nevada"]) == 0.0


def test_answer_rewards_rank_good_above_partial_above_bad():
    completions = [
        f"<answer>{GOLD}</answer>",
        "<answer>the laws of Nevada</answer>",
        "<answer>Delaware</answer>",
        GOLD,  # right text, but not in the answer format
    ]
    columns = {"answer": [GOLD] * 4, "answer_aliases": [["Nevada"]] * 4}
    f1 = answer_f1(completions, **columns)
    em = answer_exact_match(completions, **columns)
    assert f1[0] == 1.0 > f1[1] > f1[2] == f1[3] == 0.0
    assert em == [1.0, 0.0, 0.0, 0.0]
    assert answer_exact_match(["<answer>nevada</answer>"], answer=[GOLD], answer_aliases=[["Nevada"]]) == [
        1.0
    ]


def test_conversational_completions_are_read_from_the_last_message():
    conversation = [
        {"role": "assistant", "content": "searching"},
        {"role": "assistant", "content": "<answer>Nevada</answer>"},
    ]
    assert answer_exact_match([conversation], answer=["Nevada"]) == [1.0]


def test_evidence_and_frugality_rank_focused_search_first():
    gold = [[["d", 100, 200], ["d", 500, 600]]] * 3
    shown = [  # both quotes seen (one in two overlapping snippets); half of one; the right words elsewhere
        [["d", 90, 170], ["d", 150, 260], ["d", 480, 640]],
        [["d", 100, 150], ["d", 700, 900]],
        [["e", 100, 200]],
    ]
    assert evidence_coverage(["", "", ""], gold_spans=gold, shown_spans=shown) == [1.0, 0.25, 0.0]
    frugal = search_frugality(["", "", ""], num_searches=[2, 3, 8], hops=[2, 2, 2])
    assert frugal[0] == 1.0 > frugal[1] > frugal[2] > 0.0


def test_missing_columns_fail_loudly():
    with pytest.raises(KeyError, match="shown_spans"):
        evidence_coverage([""], gold_spans=[[["d", 0, 1]]])
    with pytest.raises(ValueError, match="2 values for 1"):
        answer_f1(["x"], answer=["a", "b"])
