"""What needs the instructor's attention, student by student: nothing is graded as 0 in silence.

Every file or answer that was not graded (not handed in, unreadable, refused, in a zip that was refused), a
handout handed in as given out (one entry, whatever it holds), every
file graded under another name, every `.py` graded definition by definition because of a syntax error,
every file whose run stopped early, every quiz answers file that could not be read, and every grader
problem. The terminal summary counts them and lists the first students; the class report lists them all.
Canvas's Test Student (the teacher's student view) is one entry, whatever it handed in: no one's work.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from ..grading.names import RENAMED
from ..grading.submissions import SPLIT, not_handed_in
from ..results import StudentResult
from .blank import blank_assignments, joined, quiz_not_handed_in
from .names import is_test_student

NOT_GRADED, NOT_HANDED_IN, BLANK, RENAMED_FILE, SYNTAX, STOPPED, QUIZ, GRADER, TEST_STUDENT = (
    "not graded", "not handed in", "blank handout", "graded under another name", "syntax error",
    "run stopped early", "quiz answers not read", "grader problem", "Canvas's Test Student")
STOPPED_MARK = ": running the file stopped at "


@dataclass(frozen=True)
class Attention:
    student: str
    kind: str
    reason: str


def needs_attention(results: list[StudentResult]) -> list[Attention]:
    found = []
    for result in results:
        sid = result.student_id
        if is_test_student(sid):  # the teacher's own student view: what it lacks needs no one's attention
            found.append(Attention(sid, TEST_STUDENT, "the student view's account: graded, left out of canvas.csv "
                                                      "and of the class statistics"))
        else:
            found += _attention(result)
        if result.grader_errors:
            found.append(Attention(sid, GRADER, f"{len(result.grader_errors)} check(s) hit a grader problem "
                                                "(not the student's fault): regrade once it is fixed"))
    return found


def _attention(result: StudentResult) -> list[Attention]:
    """What one student's files and answers need."""
    found = []
    sid = result.student_id
    blank = blank_assignments(result)
    quizzes_missing = [q for q in result.quizzes if quiz_not_handed_in(q)]
    folded = blank and len(quizzes_missing) == len(result.quizzes)  # the handout as given out: one entry
    if blank:
        found.append(Attention(sid, BLANK, f"{joined(blank)} handed in as given out (nothing implemented)"
                               + (", no quiz answer file" if folded and quizzes_missing else "")))
    found += [Attention(sid, NOT_HANDED_IN if not_handed_in(problem) else NOT_GRADED, problem)
              for problem in result.problems]
    split = {n[len(SPLIT):].split(" ", 1)[0] for n in result.notes if n.startswith(SPLIT)}
    for note in result.notes:
        if note.startswith(RENAMED):
            found.append(Attention(sid, RENAMED_FILE, note[len(RENAMED):]))
        elif note.startswith(SPLIT):
            found.append(Attention(sid, SYNTAX, note[len(SPLIT):]))
        elif STOPPED_MARK in note and note.split(STOPPED_MARK, 1)[0] not in split:
            found.append(Attention(sid, STOPPED, note))
    found += [Attention(sid, NOT_HANDED_IN if quiz_not_handed_in(q) else QUIZ, f"quiz {q.quiz_id}: {q.problem}")
              for q in result.quizzes if q.problem and not (folded and quiz_not_handed_in(q))]
    return found


def counts(found: list[Attention]) -> str:
    """"3 not graded, 1 graded under another name" in a fixed order."""
    tally = Counter(a.kind for a in found)
    order = [NOT_GRADED, NOT_HANDED_IN, BLANK, RENAMED_FILE, SYNTAX, STOPPED, QUIZ, GRADER, TEST_STUDENT]
    return ", ".join(f"{tally[k]} {k}" for k in order if tally[k])
