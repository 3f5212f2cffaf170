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


def _code_answers():
    """Every labelled answer of every code question (all sets), with its question."""
    from pathlib import Path

    import yaml

    from autograder.grading.quizzes import load_class_quizzes

    questions = {q.id: q for quiz in load_class_quizzes() for q in quiz.questions if q.code}
    found = []
    for path in sorted(Path(__file__).parent.glob("*_answers.yaml")):
        for qid, rows in (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).items():
            if qid in questions:
                found += [(questions[qid], str(r["answer"])) for r in rows or [] if isinstance(r, dict) and "answer" in r]
    return found


CODE_ANSWERS = _code_answers()


def _verdict(question, text):
    from autograder.quiz.code_answers import CodeAnswer, prepare

    prepared = prepare(question, text)
    return ("run", prepared.source) if isinstance(prepared, CodeAnswer) else ("judged", prepared.equal, prepared.matched)


@pytest.mark.parametrize("form", ["full stop", "capital", "both"])
def test_what_a_sentence_does_to_code_changes_nothing_it_reads_as(form):
    """A full stop after the code, a capital first letter (a phone's doing): every labelled code answer that
    reads as written reads the same way with them, and is judged the same."""
    assert CODE_ANSWERS
    changed = []
    for question, text in CODE_ANSWERS:
        first = _verdict(question, text)
        if first[0] != "run" or text.rstrip().endswith(".") or text[:1].isupper():
            continue
        written = {"full stop": text + ".", "capital": text[:1].upper() + text[1:],
                   "both": text[:1].upper() + text[1:] + "."}[form]
        if _verdict(question, written) != first:
            changed.append((question.id, written, _verdict(question, written), first))
    assert changed == []


def test_code_that_reads_as_written_is_never_recased(questions):
    """Only code that does not read is read again with a lower-case first letter: `Q` stays the input Q."""
    from autograder.quiz.code_answers import prepare

    question = questions["sc-14"]
    assert prepare(question, "Q @ K.transpose(-2, -1)").source == "Q @ K.transpose(-2, -1)"
    assert prepare(question, "Torch.matmul(Q, K.transpose(-2, -1))").source == "torch.matmul(Q, K.transpose(-2, -1))"
    assert prepare(question, "Q @ K.transpose(-2, -1) .").source == "Q @ K.transpose(-2, -1)"
    assert prepare(question, "Q @ K.transpose(-2, -1)..").equal is None  # an ellipsis is no full stop: a person reads it
