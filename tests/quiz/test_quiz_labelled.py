"""The kit against a teacher: every answer of tests/quiz/labelled_answers.yaml graded, agreement measured.

An answer the kit grades must get the teacher's score (at least 98% of them, and never full credit for
a wrong answer, never any credit for a listed misconception). An answer it cannot judge waits for review;
the review groups them (`review.cluster`), and a group must never mix answers the teacher scores
differently, or one decision would be wrong for some of its students.
"""
from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest
import yaml

from autograder.quiz import grade_question, review_text
from autograder.quiz.review import cluster

LABELLED = Path(__file__).with_name("labelled_answers.yaml")


@pytest.fixture(scope="module")
def graded(real_quizzes):
    questions = {q.id: q for quiz in real_quizzes.values() for q in quiz.questions}
    labelled = yaml.safe_load(LABELLED.read_text(encoding="utf-8"))
    rows = []
    for question_id, answers in labelled.items():
        for entry in answers:
            result = grade_question(questions[question_id], entry["answer"])
            rows.append({**entry, "question": questions[question_id], "result": result})
    return rows


def test_agreement_with_the_teacher(graded, capsys):
    judged = [r for r in graded if not r["result"].pending]
    agreeing = [r for r in judged if r["result"].score == r["score"]]
    agreement = len(agreeing) / len(judged)
    with capsys.disabled():
        print(f"\nlabelled answers: {len(graded)}; graded by the kit: {len(judged)}, agreeing with the teacher "
              f"{len(agreeing)} ({agreement:.1%}); waiting for review: {len(graded) - len(judged)}")
    assert agreement >= 0.98, [(r["answer"], r["score"], r["result"].score) for r in judged if r not in agreeing]


def test_no_wrong_answer_at_full_credit_and_no_credit_for_a_misconception(graded):
    for row in graded:
        result, question = row["result"], row["question"]
        if row["score"] < question.points:
            assert result.score < question.points, (question.id, row["answer"], result.feedback)
        if row["kind"] == "misconception":
            assert result.score == 0, (question.id, row["answer"], result.feedback)


def test_computable_questions_rarely_need_a_person(graded):
    """Maths, code and numeric answers are judged by the kit. A right one waits for a person only when it
    cannot be read; a wrong one whenever the quiz does not say how to score it (misconceptions.py), and
    then the reviewer is told why: the misconception it is, or what it computes instead."""
    computable = [r for r in graded if r["question"].type == "numeric" or r["question"].grading != "text"]
    right = [r for r in computable if r["score"] >= r["question"].points]
    waiting = [r["answer"] for r in right if r["result"].pending]
    assert len(waiting) <= 0.1 * len(right), waiting
    for r in computable:
        if r["result"].pending and r["score"] < r["question"].points and r["result"].suggestion:
            assert "listed misconception" in r["result"].suggestion or r["result"].suggested_score == 0, r["answer"]


def test_review_groups_never_mix_answers_a_teacher_scores_differently(graded):
    by_question = defaultdict(dict)
    for row in graded:
        if row["result"].pending:
            by_question[row["question"].id][review_text(row["answer"])] = row["score"]
    assert by_question, "the labelled set has answers that need review"
    for question_id, labels in by_question.items():
        for group in cluster(list(labels)):
            assert len({labels[text] for text in group}) == 1, (question_id, group)


def test_near_identical_answers_share_a_group_and_opposites_do_not():
    groups = cluster(["set the score to -inf before softmax", "set the score to -inf before the softmax",
                      "Set the score to −inf before softmax.", "set the score to -inf after softmax",
                      "set the score to 0 before softmax"])
    assert sorted(map(len, groups)) == [1, 1, 3]
    assert not any({"set the score to -inf before softmax", "set the score to -inf after softmax"} <= set(g)
                   for g in groups)



def test_the_accept_key_never_scores_a_correct_answer_below_its_label(graded, real_quizzes):
    """As on every held-out set (test_quiz_heldout.py): a hint is taken by no key."""
    from tests.quiz.accept_key import accepted_below_label, contradictions

    assert accepted_below_label(graded, real_quizzes) == []
    assert contradictions(graded, real_quizzes) == []
