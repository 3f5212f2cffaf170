"""Code answers are probed on the whole of their inputs' spec: forward's scores carry -inf where masked.

Found by a fresh attack round: `F.softmax(scores + 0 * scores, dim=-1)` earned full credit on att-13, since
it equals the key on finite scores; in the lesson's forward the masked scores are -inf, and 0 * -inf is NaN.
The generator below writes the class: every rewrite of the scores that is the identity (or a row shift) on
finite numbers but not at -inf, and every clamp of large scores or change of dtype (caught by a second
fresh round), under every spelling of the softmax, is not a match; every rewrite that stays right at -inf,
and the softmax written out with exp(), still earns full credit.
"""
from __future__ import annotations

import itertools

import pytest

from autograder.quiz import grade_question

SOFTMAX_SPELLINGS = ["F.softmax({x}, dim=-1)", "({x}).softmax(-1)", "torch.softmax({x}, dim=-1)"]
# identity or a shift per row on finite scores; NaN where a score is -inf
BREAK_AT_MINUS_INF = ["scores + 0 * scores", "scores - scores.mean(-1, keepdim=True)",
                      "scores + 0 * scores.sum(-1, keepdim=True)", "scores - scores.mean()", "scores * 0 + scores",
                      # and, at the size of unscaled dot products, not the key's weights: clamps, another dtype
                      "scores.clamp(max=50)", "scores.clamp(-30, 30)", "scores.double()", "scores.half().float()"]
# still the key's weights at -inf
RIGHT_AT_MINUS_INF = ["scores * 1.0", "scores - scores.max(-1, keepdim=True).values", "scores - scores.max()",
                      "scores + 0", "scores.clamp(min=-1e4)", "torch.nan_to_num(scores)"]


@pytest.fixture(scope="module")
def att_13(real_quizzes):
    return next(q for quiz in real_quizzes.values() for q in quiz.questions if q.id == "att-13")


def test_the_softmax_written_out_still_earns_full_credit(att_13):
    for written in ("torch.exp(scores) / torch.exp(scores).sum(dim=-1, keepdim=True)",
                    "scores.exp() / scores.exp().sum(-1, keepdim=True)"):
        result = grade_question(att_13, written)
        assert not result.pending and result.score == att_13.points, result.feedback


def test_the_question_says_its_scores_are_masked(att_13):
    assert att_13.code.masked == ("scores",)


@pytest.mark.parametrize("spelling, rewrite", list(itertools.product(SOFTMAX_SPELLINGS, BREAK_AT_MINUS_INF)))
def test_a_rewrite_that_breaks_at_minus_inf_never_earns_full_credit(att_13, spelling, rewrite):
    result = grade_question(att_13, spelling.format(x=rewrite))
    assert result.pending or result.score < att_13.points, result.feedback


@pytest.mark.parametrize("spelling, rewrite", list(itertools.product(SOFTMAX_SPELLINGS, RIGHT_AT_MINUS_INF)))
def test_a_rewrite_that_stays_right_at_minus_inf_earns_full_credit(att_13, spelling, rewrite):
    result = grade_question(att_13, spelling.format(x=rewrite))
    assert not result.pending and result.score == att_13.points, result.feedback


def test_a_listed_misconception_still_matches_where_it_computes_nan():
    """scores / row sum is NaN at -inf for the misconception's reference and the answer alike."""
    import torch

    from autograder.quiz.code_answers import same_tensor

    nan_row = torch.tensor([[float("nan"), 0.5]])
    assert same_tensor(nan_row.clone(), nan_row)
    assert not same_tensor(torch.tensor([[0.5, 0.5]]), nan_row)
    assert not same_tensor(nan_row, torch.tensor([[0.5, 0.5]]))


def test_masked_inputs_hide_some_keys_and_never_a_whole_row():
    import torch

    from autograder.sandbox.child.inputs import seeded_randn

    hidden = torch.isneginf(seeded_randn([2, 3, 5], 3041, masked=True))
    assert hidden.any() and not hidden.all(dim=-1).any()
    assert not torch.isneginf(seeded_randn([2, 3, 5], 3041)).any()


def test_a_masked_name_must_be_an_input():
    from autograder.quiz.loader import QuizFormatError, quiz_from_data

    data = {"id": "q", "title": "t", "lesson": "l", "questions": [{
        "id": "c-1", "source": "objective", "type": "short_answer", "prompt": "p", "points": 1,
        "accepted": ["F.softmax(scores, dim=-1)"], "explanation": "e", "objective": "o", "misconception": None,
        "code": {"answer": "F.softmax(scores, dim=-1)", "inputs": {"scores": [2, 3, 5]}, "masked": ["mask"]}}]}
    with pytest.raises(QuizFormatError, match="masked input 'mask'"):
        quiz_from_data(data)
