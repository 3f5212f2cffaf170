"""The course's own facts, in one module: what this course holds, checked against source/ and quizzes/.

The engine's tests run on any course (any number of assignments and quizzes, discovered from source/ and
quizzes/); what is particular to this course lives here, and an instructor who changes the course edits this
module: its parts, the lessons its quizzes were written from (their Knowledge Check and labelled answer sets,
tests/quiz/), and the size rule of those quizzes."""
from __future__ import annotations

from autograder import course, paths

ASSIGNMENTS = ("attention_scores", "single_head_attention")
QUIZZES = ("attention", "attention_score")
# Quizzes written from a lesson file in shared/lessons (its Knowledge Check, its objectives), with the labelled
# and held-out answer sets of tests/quiz/: the lesson tests and the agreement figures are about these.
LESSON_QUIZZES = {"attention": "003_2ff1fbb70d288ddb.txt", "attention_score": "000_73a3bf6e4e446221.txt"}
QUESTION_PREFIX = {"attention": "att-", "attention_score": "sc-"}
LESSON_QUIZ_SIZE = (13, 18)  # questions per lesson quiz: the Knowledge Check plus the objectives it leaves thin


def test_the_course_is_what_source_and_quizzes_hold():
    assert paths.ASSIGNMENTS == ASSIGNMENTS
    assert course.quiz_ids() == QUIZZES
    assert set(LESSON_QUIZZES) <= set(QUIZZES) and set(QUESTION_PREFIX) == set(LESSON_QUIZZES)
