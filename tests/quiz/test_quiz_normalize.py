"""Answer normalisation: equivalent spellings meet, near misses stay apart."""

from __future__ import annotations

import pytest

from autograder.quiz import grade_question, normalize_answer
from autograder.quiz.normalize import keyword_in, parse_number

SQRT_DK_VARIANTS = [
    "sqrt(d_k)", "√d_k", "√(d_k)", "square root of d_k", "sqrt dk", "Square Root of d_k.",
    "SQRT( d_k )", "√dₖ", "sqrt(d_{k})", "the square root of d_k", "sqrt of d_k", "d_k ** 0.5",
    "d_k^0.5", "d_k^(1/2)", "(d_k)^0.5", "ｓｑｒｔ(d_k)", "  sqrt(dk)  ", '"sqrt(d_k)"',
]
SQRT_DK_NEAR_MISSES = [
    "d_k", "dk", "sqrt(d_model)", "square root of d_model", "sqrt(d_v)", "sqrt(d)", "1/d_k",
    "d_k^2", "d_k²", "sqrt(d_k)^2", "cube root of d_k", "sqrt(d_k d_v)", "sqrt(k)", "d_k/2",
    "log(d_k)", "square of d_k",
]


@pytest.mark.parametrize("variant", SQRT_DK_VARIANTS)
def test_sqrt_dk_variants_normalise_alike(variant):
    assert normalize_answer(variant) == normalize_answer("square root of d_k") == "sqrt(dk)"


@pytest.mark.parametrize("near_miss", SQRT_DK_NEAR_MISSES)
def test_sqrt_dk_near_misses_stay_different(near_miss):
    assert normalize_answer(near_miss) != "sqrt(dk)"


@pytest.mark.parametrize("a, b", [
    ("1/sqrt(d_k)", "1/√d_k"),
    ("1/sqrt(d_k)", "d_k ** -0.5"),
    ("1/sqrt(d_k)", "d_k^(-1/2)"),
    ("O(n²)", "o(n^2)"),
    ("Set its score to −∞ before softmax", "set its score to -inf before softmax."),
    ("set the score to minus infinity", "set the score to -∞"),
    ("negative infinity", "-inf"),
    ("softmax(score(Q, K)) V", "SOFTMAX( score(Q,K) )  V"),
    ("q · k", "q*k"),
    ("Q Kᵀ", "Q K^T"),
    ("F.softmax(scores, dim=-1)", "f.softmax( scores , dim = −1 )"),
    ("ｑ＠ｋ", "q@k"),  # full-width forms via NFKC
    ("Weighted   sum", "weighted sum"),
])
def test_equivalent_spellings(a, b):
    assert normalize_answer(a) == normalize_answer(b)


@pytest.mark.parametrize("a, b", [
    ("1/sqrt(d_k)", "sqrt(d_k)"),
    ("-inf", "inf"),
    ("O(n^2)", "O(n)"),
    ("O(n²)", "O(n2)"),  # superscripts are powers, not digits glued on
    ("dim=-1", "dim=1"),
    ("key positions", "query positions"),
])
def test_different_answers_stay_different(a, b):
    assert normalize_answer(a) != normalize_answer(b)


@pytest.mark.parametrize("keyword, answer, hit", [
    ("score", "the scores are compared", False),  # whole words only ...
    ("score*", "the scores are compared", True),  # ... unless the keyword ends in *
    ("score", "underscore", False),
    ("project*", "Projection of Q, K and V", True),
    ("-inf", "set it to −∞", True),
    ("-inf", "set it to inf", False),
    ("before softmax", "before  the softmax", False),
    ("before softmax", "Before softmax, set -inf", True),
    ("dim=-1", "softmax(scores, dim = -1)", True),
    ("dim=-1", "softmax(scores, dim=-12)", False),
])
def test_keyword_matching(keyword, answer, hit):
    assert keyword_in(keyword, normalize_answer(answer)) is hit


@pytest.mark.parametrize("text, value", [
    ("0.125", 0.125), (".125", 0.125), ("1/8", 0.125), ("1.25e-1", 0.125), (" 0.125 ", 0.125),
    ("−0.5", -0.5), ("64", 64.0), (64, 64.0), (0.125, 0.125), ("1_000", 1000.0),
])
def test_parse_number_reads(text, value):
    assert parse_number(text) == pytest.approx(value)


@pytest.mark.parametrize("text", ["", "abc", "1/0", "0,125", "1/8/2", True, False, None, "nan", float("inf"), "12%"])
def test_parse_number_rejects(text):
    assert parse_number(text) is None


@pytest.fixture(scope="module")
def divide_by_question(real_quizzes):
    return real_quizzes["attention_score"].question("sc-10")  # "What factor ... divide by?"


@pytest.mark.parametrize("answer", SQRT_DK_VARIANTS + ["divide by sqrt(d_k)", "by √d_k", "It divides by the square root of d_k"])
def test_real_question_accepts_variants(divide_by_question, answer):
    assert grade_question(divide_by_question, answer).score == divide_by_question.points


@pytest.mark.parametrize("answer", SQRT_DK_NEAR_MISSES + ["not sqrt(d_k)", "sqrt(d_k) or d_k", "softmax"])
def test_real_question_rejects_near_misses(divide_by_question, answer):
    assert grade_question(divide_by_question, answer).score == 0
