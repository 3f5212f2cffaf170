"""`notation: code`: a question that asks for a PyTorch expression sends maths notation to a person.

Found by the third held-out set: "QKᵀ" earned the full point of "write one PyTorch expression" (it computes
the right scores once read as maths), where the teacher gave half. Every maths spelling of the key goes to
review; every Python spelling still earns the point; a question without the setting still reads maths.
"""
from __future__ import annotations

import pytest

from autograder.quiz import grade_question

MATHS_SPELLINGS = ["QKᵀ", "Q K^T", "QK^{\\top}", "Q·Kᵀ", "$QK^T$", "Q × K^T", "Q Kᵀ"]
PYTHON_SPELLINGS = ["Q @ K.transpose(-2, -1)", "torch.matmul(Q, K.transpose(-2, -1))", "Q @ K.mT",
                    "torch.einsum('bqd,bkd->bqk', Q, K)", "q @ k.transpose(1, 2)"]


@pytest.fixture(scope="module")
def questions(real_quizzes):
    return {q.id: q for quiz in real_quizzes.values() for q in quiz.questions}


def test_the_questions_that_ask_for_code_say_so(questions):
    assert questions["sc-14"].code.notation == "code" and questions["att-13"].code.notation == "code"
    assert questions["att-01"].code.notation == "any"


@pytest.mark.parametrize("answer", MATHS_SPELLINGS)
def test_maths_where_code_is_asked_goes_to_a_person(questions, answer):
    result = grade_question(questions["sc-14"], answer)
    assert result.pending and result.score == 0, (answer, result.feedback)
    assert "maths notation" in result.feedback and "PyTorch expression" in result.feedback


@pytest.mark.parametrize("answer", PYTHON_SPELLINGS)
def test_python_where_code_is_asked_still_earns_the_point(questions, answer):
    result = grade_question(questions["sc-14"], answer)
    assert not result.pending and result.score == questions["sc-14"].points, (answer, result.feedback)


def test_a_question_without_the_setting_still_grades_maths(questions):
    result = grade_question(questions["att-01"], "softmax(QKᵀ/√d_k) V")
    assert not result.pending and result.score == questions["att-01"].points, result.feedback
