"""Canvas's Test Student (the teacher's student view) is one line of the teacher's attention list, whatever it
handed in or not: graded, left out of canvas.csv and of the class statistics."""
from __future__ import annotations

import pytest

from autograder.reporting.attention import GRADER, TEST_STUDENT, needs_attention
from autograder.reporting.summary import full_table
from autograder.results import QuizResult, StudentResult

LACKING = dict(tests=(), problems=("attention_scores: no file handed in", "single_head_attention: unreadable"),
               quizzes=(QuizResult("attention", 0.0, 2.0, problem="no answer file quiz_attention.yaml handed in"),))


@pytest.mark.parametrize("name", ["studenttest", "Test Student", "student, test"])
def test_the_test_student_is_one_line(name):
    found = needs_attention([StudentResult(name, **LACKING), StudentResult("leezoë", **LACKING)])
    mine = [a for a in found if a.student == name]
    assert [(a.kind, a.reason) for a in mine] == [(TEST_STUDENT, "the student view's account: graded, left out of "
                                                                 "canvas.csv and of the class statistics")]
    assert len([a for a in found if a.student == "leezoë"]) == 3  # a real student's lacks are each listed
    table = full_table([StudentResult(name, **LACKING)], [])
    listed = table.split("Needs your attention (every student, every reason):")[1]
    assert listed.strip().splitlines() == [f"{name}: Canvas's Test Student: the student view's account: graded, "
                                           "left out of canvas.csv and of the class statistics"]
    assert GRADER not in {a.kind for a in mine}
