"""The LLM judge over a fake engine: clamping, rubric rotation, unparsable replies, grounding cap, groups."""

from dataclasses import dataclass

import pytest

from agenttune.rewards.judge import DEFAULT_RUBRICS, LLMJudge
from agenttune.rewards.mix import RewardMix

EVIDENCE = "This Agreement shall be governed by the laws of the State of Nevada."


@dataclass
class Reply:
    message: dict


class FakeEngine:
    """Answers each judge prompt with ``reply_for(candidate answer)``; records the prompts it saw."""

    def __init__(self, reply_for):
        self.reply_for = reply_for
        self.prompts: list[str] = []

    def generate(self, conversations, tools=None):
        replies = []
        for conversation in conversations:
            prompt = conversation[-1]["content"]
            self.prompts.append(prompt)
            answer = prompt.split("Candidate answer: ")[1].split("\n")[0]
            replies.append(Reply({"role": "assistant", "content": self.reply_for(answer)}))
        return replies


def scores_by_answer(table):
    return FakeEngine(lambda answer: table[answer])


def completions(*answers):
    return [f"I searched. <answer>{a}</answer>" for a in answers]


def test_scores_are_read_and_clamped():
    judge = LLMJudge(
        scores_by_answer({"Nevada": "Right. SCORE: 1.7", "Utah": "Wrong. SCORE: -0.3", "NV": "SCORE: 0.6"})
    )
    assert judge(completions("Nevada", "Utah", "NV"), question=["Which law?"] * 3) == [1.0, 0.0, 0.6]
    assert judge.judged == 3 and judge.unparsable == 0


def test_rubrics_rotate_per_sample_and_across_calls():
    engine = scores_by_answer({"a": "SCORE: 1"})
    judge = LLMJudge(
        engine, rubrics=["R0 {question} Candidate answer: {answer}\n", "R1 Candidate answer: {answer}\n"]
    )
    judge(completions("a", "a", "a"), question=["q"] * 3)
    judge(completions("a"), question=["q"])
    assert [p[:2] for p in engine.prompts] == ["R0", "R1", "R0", "R1"]
    assert len(DEFAULT_RUBRICS) >= 3


def test_a_group_shares_one_rubric():
    judge = LLMJudge(scores_by_answer({"a": "SCORE: 1", "b": "SCORE: 0"}), group_size=2)
    judge(completions("a", "b", "a", "b"), question=["q"] * 4)
    assert judge.last_rubrics == [0, 0, 1, 1]


def test_unparsable_replies_are_counted_and_left_unscored(caplog):
    judge = LLMJudge(scores_by_answer({"Nevada": "SCORE: 0.9", "Utah": "I cannot decide."}))
    logged = {}
    scores = judge(completions("Nevada", "Utah"), question=["q", "q"], log_metric=logged.__setitem__)
    assert scores == [0.9, None]
    assert judge.unparsable == 1 and logged["judge/unparsable"] == 1.0
    assert "I cannot decide." in caplog.text
    assert RewardMix({"judge": (judge, 1.0)})(completions("Utah")) == [
        0.0
    ]  # excluded, not scored as a constant
    assert judge.unparsable == 2


def test_empty_answers_score_zero_without_asking():
    engine = scores_by_answer({})
    judge = LLMJudge(engine)
    assert judge(["<answer> </answer>", ""], question=["q", "q"]) == [0.0, 0.0]
    assert engine.prompts == [] and judge.judged == 0


def test_answers_sharing_no_content_word_with_the_evidence_are_capped():
    judge = LLMJudge(
        scores_by_answer({"Nevada law": "SCORE: 1", "Utah courts": "SCORE: 1"}), grounding_cap=0.2
    )
    scores = judge(
        completions("Nevada law", "Utah courts"), question=["q", "q"], evidence=[EVIDENCE, [EVIDENCE]]
    )
    assert scores == [1.0, 0.2] and judge.capped == 1
    assert EVIDENCE in judge.engine.prompts[0]


def test_without_evidence_there_is_no_cap():
    judge = LLMJudge(scores_by_answer({"The state of Utah": "SCORE: 1"}))
    assert judge(completions("The state of Utah"), question=["q"]) == [1.0]


def test_group_relative_scores_keep_the_order_within_each_group():
    table = {"best": "SCORE: 0.9", "good": "SCORE: 0.6", "bad": "SCORE: 0.1", "same": "SCORE: 0.5"}
    judge = LLMJudge(scores_by_answer(table), group_size=3)
    scores = judge(completions("good", "bad", "best", "same", "same", "same"), question=["q"] * 6)
    first = scores[:3]
    assert first[2] > first[0] > first[1]
    assert sum(first) == pytest.approx(0.0)
    assert scores[3:] == [0.0, 0.0, 0.0]
    with pytest.raises(ValueError, match="groups of 3"):
        judge(completions("good", "bad"), question=["q", "q"])


def test_question_falls_back_to_the_prompt_and_reference_is_shown():
    engine = scores_by_answer({"Nevada": "SCORE: 1"})
    prompt = [{"role": "system", "content": "sys"}, {"role": "user", "content": "Which state's law governs?"}]
    LLMJudge(engine)(completions("Nevada"), prompts=[prompt], answer=["Nevada"])
    assert (
        "Which state's law governs?" in engine.prompts[0] and "Reference answer: Nevada" in engine.prompts[0]
    )
