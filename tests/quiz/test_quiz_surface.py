"""What a sentence or a keyboard does to an answer changes nothing: a full stop at its end, a capital first
letter, capitals throughout, spacing (for code and formulas only what a class does to them: case is meaning
there). Drawn from every labelled answer of every set, each with such a change, graded against the answer as
written: the same score, and a person reads the one exactly when a person reads the other. Found by the
review class: "0.25." and "Sqrt(d_model)" waited for a person where "0.25" and "sqrt(d_model)" did not.
"""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings, strategies as st

from autograder.grading.quizzes import load_class_quizzes
from autograder.quiz import grade_question
from review_class import FORMAL_SURFACE, SURFACE, formal_questions

QUESTIONS = {q.id: q for quiz in load_class_quizzes() for q in quiz.questions}
FORMAL = formal_questions()


def _labelled() -> list[tuple[str, str]]:
    found = []
    for path in sorted(Path(__file__).parent.glob("*_answers.yaml")):
        for qid, rows in (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).items():
            found += [(qid, row["answer"]) for row in rows or []
                      if qid in QUESTIONS and isinstance(row, dict) and isinstance(row.get("answer"), str)]
    return sorted(set(found))


LABELLED = _labelled()


def test_there_are_labelled_answers_of_every_type():
    assert {QUESTIONS[qid].type for qid, _ in LABELLED} == {"multiple_choice", "true_false", "short_answer", "numeric"}


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_sentence_around_an_answer_changes_nothing(data):
    qid, text = data.draw(st.sampled_from(LABELLED))
    forms = (FORMAL_SURFACE if qid in FORMAL else SURFACE)[3:]  # the first ones leave the text as it is
    written = data.draw(st.sampled_from(forms))(text)
    bare, changed = grade_question(QUESTIONS[qid], text), grade_question(QUESTIONS[qid], written)
    assert (changed.score, changed.pending) == (bare.score, bare.pending), (qid, text, written, changed.feedback)


@pytest.mark.parametrize("qid, bare, written", [
    ("sc-10", "sqrt(d_model)", "Sqrt(d_model)"), ("sc-10", "sqrt(d_k)", "sqrt(d_k)."),
    ("sc-10", "I think sqrt(d_k)?", "I think sqrt(d_k)?."), ("att-11", "0.0625", "0.0625."),
])
def test_the_cases_the_review_class_found(qid, bare, written):
    assert (grade_question(QUESTIONS[qid], written).score, grade_question(QUESTIONS[qid], written).pending) == \
        (grade_question(QUESTIONS[qid], bare).score, grade_question(QUESTIONS[qid], bare).pending)
    assert not grade_question(QUESTIONS[qid], written).pending
