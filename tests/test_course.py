"""The course's own facts, in one module: what this course holds, checked against source/ and quizzes/.

The engine's tests run on any course (any number of assignments and quizzes, discovered from source/ and
quizzes/); what is particular to this course lives here, and an instructor who removes or renames a part, or
changes a lesson quiz, edits this module (adding the next lesson needs no edit here): its parts, the lessons its quizzes were written from (their Knowledge Check and labelled answer sets,
tests/quiz/), the size rule of those quizzes and how much of them the labelled answer sets cover. The kit's
own tests hold on a quiz of any size and on free-text questions no labelled set answers yet."""
from __future__ import annotations

from pathlib import Path

import yaml

from autograder import course, paths

ASSIGNMENTS = ("attention_scores", "single_head_attention")
QUIZZES = ("attention", "attention_score")
# Quizzes written from a lesson file in shared/lessons (its Knowledge Check, its objectives), with the labelled
# and held-out answer sets of tests/quiz/: the lesson tests and the agreement figures are about these.
LESSON_QUIZZES = {"attention": "003_2ff1fbb70d288ddb.txt", "attention_score": "000_73a3bf6e4e446221.txt"}
QUESTION_PREFIX = {"attention": "att-", "attention_score": "sc-"}
LESSON_QUIZ_SIZE = (13, 18)  # questions per lesson quiz: the Knowledge Check plus the objectives it leaves thin
LABELLED_SETS = Path(__file__).parent / "quiz"  # labelled_answers.yaml (tuned on), heldout*_answers.yaml (not)
LABELLED_PER_QUESTION = 8  # labelled answers per short-answer or numeric question, a right one and a misconception
HELDOUT_ANSWERS = 300  # answers per held-out set, covering every free-text question


def test_the_course_still_holds_its_parts_in_order():
    """Each part listed here is still in source/ and quizzes/, in this order. A part added (the next lesson: a new
    master, a new quiz) needs no edit here; a part removed or renamed does (edit ASSIGNMENTS / QUIZZES)."""
    assert [a for a in paths.ASSIGNMENTS if a in ASSIGNMENTS] == list(ASSIGNMENTS), paths.ASSIGNMENTS
    assert [q for q in course.quiz_ids() if q in QUIZZES] == list(QUIZZES), course.quiz_ids()
    assert set(LESSON_QUIZZES) <= set(QUIZZES) and set(QUESTION_PREFIX) == set(LESSON_QUIZZES)


def _lesson_questions():
    from autograder.quiz import load_quizzes

    quizzes = load_quizzes(paths.QUIZZES_DIR, formulas=False)
    return [q for quiz_id in LESSON_QUIZZES for q in quizzes[quiz_id].questions]


def test_lesson_quizzes_are_the_courses_size():
    low, high = LESSON_QUIZ_SIZE
    for quiz_id in LESSON_QUIZZES:
        size = sum(1 for q in _lesson_questions() if q.id.startswith(QUESTION_PREFIX[quiz_id]))
        assert low <= size <= high, (quiz_id, size)


def test_the_labelled_set_answers_every_short_answer_and_numeric_question():
    labelled = yaml.safe_load((LABELLED_SETS / "labelled_answers.yaml").read_text(encoding="utf-8"))
    for question in (q for q in _lesson_questions() if q.type in ("short_answer", "numeric")):
        answers = labelled.get(question.id, [])
        assert len(answers) >= LABELLED_PER_QUESTION, question.id
        assert {"correct", "misconception"} <= {e["kind"] for e in answers}, question.id


def test_every_heldout_set_covers_every_free_text_question():
    free_text = {q.id for q in _lesson_questions() if q.type == "short_answer" and q.grading == "text"}
    for path in sorted(LABELLED_SETS.glob("heldout*_answers.yaml")):
        answers = yaml.safe_load(path.read_text(encoding="utf-8"))
        assert sum(len(entries) for entries in answers.values()) >= HELDOUT_ANSWERS, path.name
        assert free_text <= set(answers), (path.name, sorted(free_text - set(answers)))
