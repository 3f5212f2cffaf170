"""The one result model. Immutable; every report (CSV, JSON, feedback, HTML) renders from it."""
from __future__ import annotations

import json
import os
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

PASSED, FAILED, GRADER_ERROR = "passed", "failed", "grader_error"
FORMAT_VERSION = 2


@dataclass(frozen=True)
class TestResult:
    test_id: str                 # stable across runs: "<assignment>::<test function>"
    name: str                    # what the student reads
    assignment: str
    question: str                # the exercise, one gradebook column
    score: float
    max_score: float
    status: str                  # PASSED, FAILED or GRADER_ERROR
    output: str = ""             # feedback for the student
    visibility: str = "visible"
    tags: tuple[str, ...] = ()   # misconceptions this test targets
    grader_detail: str = ""      # traceback of a grader bug: for instructors only
    attempted: bool = True       # False when failed only because the part is missing or still a stub


@dataclass(frozen=True)
class QuizItem:
    question_id: str
    score: float
    max_score: float
    feedback: str = ""
    pending: bool = False        # waiting for the instructor's review: its points are neither earned nor lost yet


@dataclass(frozen=True)
class QuizResult:
    quiz_id: str
    score: float
    max_score: float
    items: tuple[QuizItem, ...] = ()
    problem: str | None = None
    pending: float = 0.0         # points waiting for review (part of max_score, not of score)


@dataclass(frozen=True)
class StudentResult:
    student_id: str
    tests: tuple[TestResult, ...]
    quizzes: tuple[QuizResult, ...] = ()
    notes: tuple[str, ...] = ()          # file choices, ignored magics, why something was ungradable
    problems: tuple[str, ...] = ()       # files that could not be graded at all
    printed: str = ""                    # what the student's code printed (feedback only)
    isolation: str = ""
    fingerprint: str = ""
    format_version: int = FORMAT_VERSION

    @property
    def score(self) -> float:
        return round(sum(t.score for t in self.tests) + sum(q.score for q in self.quizzes), 6)

    @property
    def max_score(self) -> float:
        return round(sum(t.max_score for t in self.tests) + sum(q.max_score for q in self.quizzes), 6)

    @property
    def grader_errors(self) -> tuple[TestResult, ...]:
        return tuple(t for t in self.tests if t.status == GRADER_ERROR)

    def question_scores(self) -> dict[str, tuple[float, float]]:
        """(score, max) per exercise, in test order, then one entry per quiz."""
        totals: dict[str, list[float]] = {}
        for test in self.tests:
            entry = totals.setdefault(test.question, [0.0, 0.0])
            entry[0] += test.score
            entry[1] += test.max_score
        for quiz in self.quizzes:
            totals[f"quiz:{quiz.quiz_id}"] = [quiz.score, quiz.max_score]
        return {k: (round(v[0], 6), round(v[1], 6)) for k, v in totals.items()}

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "StudentResult":
        tests = tuple(TestResult(**{**t, "tags": tuple(t["tags"])}) for t in data["tests"])
        quizzes = tuple(QuizResult(**{**q, "items": tuple(QuizItem(**i) for i in q["items"])})
                        for q in data.get("quizzes", []))
        rest = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items() if k not in ("tests", "quizzes")}
        return cls(tests=tests, quizzes=quizzes, **rest)


def write_atomic(path: Path, text: str) -> None:
    """Write to a temporary file beside the target, then rename: readers see old or new, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.chmod(temporary, 0o644)  # mkstemp makes 0600; outputs are meant to be read and shared
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def save(result: StudentResult, path: Path) -> None:
    write_atomic(path, json.dumps(result.to_dict(), indent=1, ensure_ascii=False, sort_keys=True))


def load(path: Path) -> StudentResult:
    return StudentResult.from_dict(json.loads(path.read_text(encoding="utf-8")))
