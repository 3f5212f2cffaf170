"""A number answer that is the key rounded to the places it writes goes to a person, not to 0.

Found by a fresh attack round: "0.13" for sc-11's 0.125 got 0 without review; a teacher may accept it. The
generator writes every rounding of every numeric key (half up and half even, each number of places that
falls outside the tolerance): each waits for a person and none earns credit on its own; the numbers one
step beside each rounding are still marked wrong by the kit.
"""
from __future__ import annotations

from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal

import pytest

from autograder.quiz import grade_question


def _roundings(question):
    key = Decimal(repr(question.answer))
    for places in range(1, 6):
        step = Decimal(1).scaleb(-places)
        for mode in (ROUND_HALF_UP, ROUND_HALF_EVEN):
            rounded = key.quantize(step, rounding=mode)
            if abs(float(rounded) - question.answer) > question.tolerance + 1e-9:
                yield rounded, step


@pytest.fixture(scope="module")
def numeric(real_quizzes):
    return [q for quiz in real_quizzes.values() for q in quiz.questions if q.type == "numeric"]


def test_some_numeric_key_has_a_rounding_outside_its_tolerance(numeric):
    assert any(True for q in numeric for _ in _roundings(q))


def test_a_rounded_key_waits_for_a_person(numeric):
    for q in numeric:
        for rounded, _ in _roundings(q):
            for written in (f"{rounded:f}", f"≈ {rounded:f}"):
                result = grade_question(q, written)
                assert result.pending and result.score == 0, (q.id, written, result.feedback)


def test_a_number_beside_a_rounding_is_still_wrong(numeric):
    from autograder.quiz.misconceptions import matching_number

    roundings = {(q.id, r) for q in numeric for r, _ in _roundings(q)}
    for q in numeric:
        for rounded, step in _roundings(q):
            for beside in (rounded + 3 * step, rounded - 3 * step):
                if (q.id, beside) in roundings or matching_number(q, float(beside)) is not None:
                    continue
                result = grade_question(q, f"{beside:f}")
                assert not result.pending and result.score < q.points, (q.id, str(beside), result.feedback)
