"""Parts handed in as given out: a file of an assignment whose every scored check failed only because nothing
in it is implemented yet (the handout's stubs). Such a part is said once, to the student ("you handed in the
blank handout") and to the teacher (one entry), instead of once per check."""
from __future__ import annotations

from ..grading.submissions import not_handed_in
from ..quiz.grade import NO_ANSWER_FILE
from ..results import FAILED, QuizResult, StudentResult


def blank_assignments(result: StudentResult) -> list[str]:
    """Assignments whose file was handed in and read, and nothing of which is implemented, in test order."""
    missing = {not_handed_in(p) for p in result.problems} - {None}
    scored: dict[str, list] = {}
    for test in result.tests:
        if test.max_score > 0:
            scored.setdefault(test.assignment, []).append(test)
    return [a for a, tests in scored.items() if a not in missing and a not in result.unreadable
            and all(t.status == FAILED and not t.attempted for t in tests)]


def quiz_not_handed_in(quiz: QuizResult) -> bool:
    return bool(quiz.problem) and quiz.problem.startswith(NO_ANSWER_FILE)


def joined(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def student_line(result: StudentResult, blank: list[str]) -> str:
    """The one line the student reads about the parts handed in blank."""
    points = sum(t.max_score for t in result.tests if t.assignment in blank)
    it, scores = ("it", "it scores") if len(blank) == 1 else ("them", "they score")
    return (f"You handed in the blank handout of {joined(blank)}: nothing in {it} is implemented yet, so {scores} "
            f"0 of {points:g} points. Fill in each `raise NotImplementedError(...)` line and hand it in again.")
