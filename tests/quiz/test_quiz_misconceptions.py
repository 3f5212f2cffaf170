"""A wrong answer is scored only as the quiz declares (autograder/quiz/misconceptions.py).

A listed misconception earns the points the quiz gives it, matched as the question's answers are (same
option, number, formula, tensors); listed without points, it waits for a person with the misconception
named. A wrong formula or code answer the quiz does not list waits for a person (0 suggested); a wrong
option, verdict or number scores 0. Quiz files that list a misconception the grader cannot use are refused.
"""
from __future__ import annotations

import copy

import pytest

from autograder.quiz import QuizFormatError, grade_question
from autograder.quiz.loader import quiz_from_data

MATHS = {
    "id": "q-maths", "source": "objective", "type": "short_answer", "points": 2,
    "prompt": "What does scaled dot-product attention divide the scores by?",
    "accepted": ["sqrt(d_k)"], "maths": {"answer": "sqrt(d_k)", "symbols": ["d_k", "d_model"]},
    "explanation": "By sqrt(d_k).", "objective": "Objective two.", "misconception": None,
    "misconceptions": [{"answer": "d_k", "points": 1, "says": "d_k itself, not its square root"},
                       {"answer": "1/sqrt(d_k)", "says": "the factor, not the divisor"}],
}


def quiz(data, **changes):
    data = copy.deepcopy(data)
    data["questions"].append(copy.deepcopy(MATHS))
    for qid, key, value in changes.pop("set", []):
        question = next(q for q in data["questions"] if q["id"] == qid)
        if value is None:
            question.pop(key, None)
        else:
            question[key] = value
    data.update(changes)
    return quiz_from_data(data)


@pytest.fixture
def mini(minimal_quiz_data):
    return quiz(minimal_quiz_data, set=[
        ("q-mc", "misconceptions", [{"answer": "c", "points": 0.5, "says": "gamma is half right"}]),
        ("q-num", "misconceptions", [{"answer": "1/64", "points": 0, "says": "1/d_k"},
                                     {"answer": 8, "says": "sqrt(d_k), the divisor"}]),
    ])


@pytest.mark.parametrize("given, d_k", [("d_k", 1), ("d_k^1", 1), ("sqrt(d_k)^2", 1), ("dk", None)])
def test_a_listed_misconception_earns_the_points_the_quiz_declares(mini, given, d_k):
    result = grade_question(mini.question("q-maths"), given)
    if d_k is None:  # an unknown name: a person reads it, as before
        assert result.pending
    else:
        assert not result.pending and result.score == d_k and "d_k itself" in result.feedback


@pytest.mark.parametrize("given", ["1/sqrt(d_k)", "d_k^(-1/2)", "1 / √d_k"])
def test_a_misconception_listed_without_points_goes_to_review_named(mini, given):
    result = grade_question(mini.question("q-maths"), given)
    assert result.pending and result.score == 0
    assert "listed misconception: the factor, not the divisor" in result.suggestion
    assert "the factor" not in result.feedback  # students are not told before the review


@pytest.mark.parametrize("given", ["d_model", "sqrt(d_model)", "d_k^2"])
def test_an_unlisted_wrong_formula_goes_to_review_with_0_suggested(mini, given):
    result = grade_question(mini.question("q-maths"), given)
    assert result.pending and result.suggested_score == 0 and "none of the listed misconceptions" in result.suggestion


def test_the_quiz_or_the_question_may_score_unlisted_wrong_answers_0(minimal_quiz_data):
    for changes in ({"wrong_answers": "zero"}, {"set": [("q-maths", "wrong_answers", "zero")]}):
        result = grade_question(quiz(minimal_quiz_data, **changes).question("q-maths"), "d_model")
        assert not result.pending and result.score == 0
    stricter = quiz(minimal_quiz_data, wrong_answers="zero", set=[("q-maths", "wrong_answers", "review")])
    assert grade_question(stricter.question("q-maths"), "d_model").pending  # the question's word wins


def test_options_and_numbers(mini):
    mc, num = mini.question("q-mc"), mini.question("q-num")
    assert grade_question(mc, "c").score == 0.5 and "gamma is half right" in grade_question(mc, "c").feedback
    assert grade_question(mc, "a").score == 0 and not grade_question(mc, "a").pending  # unlisted: 0
    assert grade_question(num, "0.015625").score == 0 and not grade_question(num, "1/64").pending
    assert grade_question(num, "8").pending and "sqrt(d_k)" in grade_question(num, "8").suggestion
    assert grade_question(num, 0.5).score == 0 and not grade_question(num, 0.5).pending  # unlisted number: 0


@pytest.mark.parametrize("given", ["d_k ** -0.5 with d_k = 64, so 0.125", "64 ** -0.5 = 0.125"])
def test_a_number_answer_that_also_writes_the_right_number_is_read_by_a_person(mini, given):
    result = grade_question(mini.question("q-num"), given)
    assert result.pending or result.score == 1, result.feedback


@pytest.mark.parametrize("qid, misconception, problem", [
    ("q-mc", {"answer": "d", "says": "x"}, "is not one of the option ids"),
    ("q-mc", {"answer": "b", "says": "x"}, "name the same option"),
    ("q-mc", {"answer": "c", "says": "x", "points": 1}, "scores 1: an answer worth full marks"),
    ("q-num", {"answer": "1/8", "says": "x"}, "within the tolerance"),
    ("q-num", {"answer": "eleventy", "says": "x"}, "cannot be read as a number"),
    ("q-maths", {"answer": "d_k^(1/2)", "says": "x"}, "are the same formula under sympy"),
    ("q-maths", {"answer": "sqrt(T_k)", "says": "x"}, "cannot be read as a formula"),
    ("q-maths", {"answer": "d_k"}, "missing required key 'says'"),
    ("q-maths", {"answer": "d_k", "says": "x", "points": -1}, "must be >= 0"),
    ("q-sa", {"answer": "square root of d_k", "says": "x"}, "are the same text once normalised"),
])
def test_a_misconception_the_grader_cannot_use_is_refused(minimal_quiz_data, qid, misconception, problem):
    with pytest.raises(QuizFormatError, match=problem) as failure:
        quiz(minimal_quiz_data, set=[(qid, "misconceptions", [misconception])])
    assert f"question {qid}" in str(failure.value)


@pytest.mark.parametrize("changes, problem", [
    ({"set": [("q-tf", "misconceptions", [{"answer": "x", "says": "x"}])]}, "not allowed for a true_false"),
    ({"set": [("q-sa", "wrong_answers", "zero")]}, "free text that no rule reads always goes to review"),
    ({"set": [("q-maths", "wrong_answers", "sometimes")]}, "must be one of zero, review"),
    ({"wrong_answers": "never"}, "must be one of zero, review"),
])
def test_wrong_answer_settings_are_validated(minimal_quiz_data, changes, problem):
    with pytest.raises(QuizFormatError, match=problem):
        quiz(minimal_quiz_data, **changes)


def test_every_listed_misconception_of_the_shipped_quizzes_scores_as_declared(real_quizzes):
    """Each misconception a shipped quiz lists, answered as listed: its points, or review naming it; never
    full credit. Code answers run in the sandbox, as in a class."""
    checked = 0
    for question in (q for quiz in real_quizzes.values() for q in quiz.questions):
        for listed in question.misconceptions:
            result = grade_question(question, listed.answer)
            if listed.points is None:
                assert result.pending and listed.says in result.suggestion, (question.id, listed.answer)
            else:
                assert not result.pending and result.score == listed.points, (question.id, listed.answer,
                                                                              result.feedback)
            checked += 1
    assert checked >= 20


# Numbers and roots in the course's languages, generated per question: each right value in words is right.
IN_WORDS = {0.25: ["un quart", "un cuarto", "ein Viertel", "one quarter"],
            0.125: ["un huitième", "un octavo", "ein Achtel", "one eighth"],
            64: ["sixty-four", "sixty four", "soixante-quatre", "sesenta y cuatro", "vierundsechzig"],
            16: ["sixteen", "seize", "dieciséis", "sechzehn"], 8: ["eight", "huit", "ocho", "acht"]}


def test_numbers_in_words_of_the_courses_languages(real_quizzes):
    numeric = [q for quiz in real_quizzes.values() for q in quiz.questions if q.type == "numeric"]
    checked = 0
    for question in numeric:
        for value, spelled in IN_WORDS.items():
            for words in spelled:
                result = grade_question(question, words)
                right = abs(value - question.answer) <= question.tolerance
                assert result.pending or (result.score == question.points) == right, (question.id, words)
                if right:
                    assert result.score == question.points, (question.id, words, result.feedback)
                    checked += 1
    assert checked >= 8


@pytest.mark.parametrize("words", ["racine carrée de d_k", "la raíz cuadrada de d_k", "Wurzel aus d_k",
                                   "square root of d_k"])
def test_roots_in_words_of_the_courses_languages(real_quizzes, words):
    assert grade_question(real_quizzes["attention_score"].question("sc-10"), words).score == 1


HEDGES = ["I think {}", "maybe {}?", "{}?", "probably {}", "{} I think", "{}, not sure", "peut-être {}",
          "creo que {}", "vielleicht {}"]


@pytest.mark.parametrize("hedge", HEDGES)
def test_a_hedged_right_number_formula_or_code_answer_is_right_and_a_hedged_wrong_one_is_not(real_quizzes, hedge):
    by_id = {q.id: q for quiz in real_quizzes.values() for q in quiz.questions}
    for qid, right, wrong in [("sc-11", "1/8", "1/64"), ("sc-10", "sqrt(d_k)", "d_model"),
                              ("sc-14", "Q @ K.transpose(-2, -1)", "Q @ K")]:
        question = by_id[qid]
        assert grade_question(question, hedge.format(right)).score == question.points, (qid, hedge)
        result = grade_question(question, hedge.format(wrong))
        assert result.score < question.points, (qid, hedge, result.feedback)


@pytest.mark.parametrize("words", ["multiplié par", "fois", "multiplicado por", "mal", "multiplied by", "times"])
def test_products_in_words_of_the_courses_languages(real_quizzes, words):
    question = real_quizzes["attention"].question("att-01")
    assert grade_question(question, f"softmax(score(Q, K)) {words} V").score == question.points
    assert grade_question(question, f"V {words} softmax(score(Q, K))").score == 0  # listed: the wrong side
