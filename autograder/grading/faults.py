"""The student's failure as a hidden test raises it: below both student.py (which raises it from a call) and
diagnose.py (which calls the student's code again for evidence), so neither imports the other for it."""
from __future__ import annotations

from ..results import Diagnosis


class StudentFault(AssertionError):
    """The student's code failed, crashed, hung or returned the wrong thing. The message states the symptom;
    `diagnoses` name the mistakes whose models reproduce it (docs/diagnosis.md), and may be set after raising."""

    def __init__(self, message: str, attempted: bool = True, diagnoses: tuple[Diagnosis, ...] = ()) -> None:
        super().__init__(message)
        self.attempted = attempted  # False: missing file, stub left as is, name not defined
        self.diagnoses = tuple(diagnoses)


class NotAttempted(StudentFault):
    """The part is not there to judge: no file, a stub still raising NotImplementedError, no such name."""

    def __init__(self, message: str) -> None:
        super().__init__(message, attempted=False)


class ExplainedElsewhere(StudentFault):
    """A failure that a mistake in other questions' functions explains (`questions`, of the same assignment): one
    mistake, one charge (docs/grading.md). The plugin charges this check only when none of those questions lost points for
    the student; otherwise it is scored as passed, its message saying where the mistake is charged."""

    def __init__(self, message: str, questions: tuple[str, ...]) -> None:
        super().__init__(message)
        self.questions = tuple(questions)
