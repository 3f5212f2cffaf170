"""Every formula or code answer that waits for review carries a suggested score, so the review page's `a` and
Enter (take the suggestion) work on it: listed misconceptions the quiz gives no points, answers that do not
read or run, and wrong answers alike. Generated from every shipped maths and code question: its listed
misconceptions, and its accepted answer broken the ways students break it."""
from __future__ import annotations

import pytest

from autograder import paths
from autograder.quiz import load_quizzes
from autograder.quiz.grade import grade_question
from autograder.quiz.outcome import GradingContext

pytestmark = pytest.mark.slow


def broken_forms(answer: str) -> list[str]:
    """The accepted answer as it comes back wrong: cut short, a name misspelt beyond a slip, wrapped in an
    unknown function, an operator doubled, its operands added, and a sentence instead of a formula."""
    forms = [answer[: max(1, len(answer) // 2)], f"frobnicate({answer})", answer.replace("(", "((", 1),
             answer.replace("@", "@@", 1), f"({answer}) + zzz", "the number of heads"]
    names = [w for w in answer.replace("(", " ").replace(")", " ").replace(".", " ").split() if w.isidentifier()]
    if names:
        forms.append(answer.replace(names[0], names[0] + "qqq", 1))
    return [f for f in dict.fromkeys(forms) if f.strip() and f != answer]


def formula_and_code_cases():
    for quiz in load_quizzes(paths.QUIZZES_DIR).values():
        for question in quiz.questions:
            if question.type == "short_answer" and (question.maths is not None or question.code is not None):
                answers = [m.answer for m in question.misconceptions]
                answers += [f for accepted in question.accepted[:1] for f in broken_forms(accepted)]
                yield pytest.param(quiz.id, question, answers, id=f"{quiz.id}-{question.id}")


@pytest.mark.parametrize("quiz_id, question, answers", list(formula_and_code_cases()))
def test_every_pending_formula_or_code_answer_has_a_suggested_score(quiz_id, question, answers):
    context = GradingContext(quiz_id=quiz_id)
    pending = []
    for answer in answers:
        item = grade_question(question, answer, context)
        if item.pending:
            pending.append(answer)
            assert item.suggested_score is not None, f"{answer!r}: pending without a suggestion ({item.feedback})"
            assert 0 <= item.suggested_score <= question.points and item.suggestion, answer
    assert pending, "the generated answers must reach the review, or this test proves nothing"
