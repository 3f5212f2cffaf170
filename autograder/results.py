"""The one result model. Immutable; every report (CSV, JSON, feedback, HTML) renders from it.

Format 3 added `TestResult.diagnoses` and `StudentResult.unreadable`, format 4 `TestResult.repair`,
`TestResult.repair_tried`, `TestResult.repair_stopped` and `Fix.part`; files of formats 2 and 3 still load (the new fields default to empty). How diagnoses are made and attached: docs/diagnosis.md.
"""
from __future__ import annotations

import dataclasses
import json
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

PASSED, FAILED, GRADER_ERROR = "passed", "failed", "grader_error"
FORMAT_VERSION = 4
MISTAKE_ID = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")
TEXT_LIMIT = 65_536  # characters of any one text field kept in a stored result
# Bidirectional overrides and isolates reorder what a reader sees (a name that displays as another one).
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff" + "".join(sorted(BIDI_CONTROLS)) + "]")


def _escape(match: re.Match) -> str:
    char = match.group()
    if "\udc80" <= char <= "\udcff":
        return f"\\x{ord(char) - 0xDC00:02x}"  # a byte of a file name in no valid encoding, as Python decodes it
    if "\ud800" <= char <= "\udfff":
        return "\ufffd"  # any other lone surrogate (printed by student code): not encodable
    return f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}"


def safe_text(value: object, limit: int = TEXT_LIMIT) -> str:
    """Any text that came from a student, made safe to store and render: encodable in UTF-8 (the bytes of a
    name in no valid encoding are shown as \\xNN, other lone surrogates become U+FFFD), control characters other than newline and tab and bidirectional controls shown as
    escapes, and at most `limit` characters (a cut one ends with a note). Idempotent."""
    text = value if type(value) is str else str(value)
    if len(text) <= limit and not _UNSAFE.search(text):
        return text
    original = len(text)
    text = _UNSAFE.sub(_escape, text[:limit])  # escapes only lengthen: the first `limit` characters suffice
    if original > limit or len(text) > limit:
        note = f"\n[... cut: {original} characters in all]"
        text = (text[:max(0, limit - len(note))] + note)[:limit]
    return text


def safe_result(result):
    """A result (or any part of one) whose every text went through safe_text; the same object when nothing
    in it needed a change (the usual case costs no copy)."""
    kind = type(result)
    if kind is str:
        return safe_text(result)
    if kind is tuple:
        cleaned = tuple(safe_result(item) for item in result)
        return result if all(new is old for new, old in zip(cleaned, result)) else cleaned
    names = _field_names(kind)
    if not names:
        return result
    changes = {}
    for name in names:
        old = getattr(result, name)
        new = safe_result(old)
        if new is not old:
            changes[name] = new
    return dataclasses.replace(result, **changes) if changes else result


_FIELDS: dict[type, tuple[str, ...]] = {}


def _field_names(kind: type) -> tuple[str, ...]:
    """The fields of a dataclass type, () for any other type (looked up once per type)."""
    names = _FIELDS.get(kind)
    if names is None:
        names = _FIELDS[kind] = tuple(f.name for f in dataclasses.fields(kind)) if dataclasses.is_dataclass(kind) \
            else ()
    return names


@dataclass(frozen=True)
class Diagnosis:
    """One known mistake whose trusted model reproduces what the student's code did on a failed check."""
    mistake: str    # stable id across runs and tests, e.g. "mask-after-softmax": reports count students by it
    title: str      # the mistake in the lesson's words, e.g. "the mask is applied after the softmax"
    evidence: str   # why we know, e.g. "your weights equal those of masking after the softmax to 1e-6"

    def __post_init__(self) -> None:
        if not isinstance(self.mistake, str) or not MISTAKE_ID.fullmatch(self.mistake):
            raise ValueError(f"a mistake id is lower-case words joined by hyphens, got {self.mistake!r}")
        for name in ("title", "evidence"):
            if not isinstance(getattr(self, name), str) or not getattr(self, name).strip():
                raise ValueError(f"Diagnosis({self.mistake!r}).{name} must be non-empty text")


@dataclass(frozen=True)
class Fix:
    """One edit of the student's own code, part of a repair (docs/diagnosis.md, "Repairs")."""
    edit: str       # what reports count repairs by: the kind of edit, e.g. "call-sigmoid-to-tanh"
    where: str      # "line 35", or "cell 4, line 3" in a notebook
    old: str        # the student's code there
    new: str        # the code the edit puts there
    part: str = ""  # another part's edit, made too: the question's own edits need it (a callee's repair)

    def __post_init__(self) -> None:
        if not isinstance(self.edit, str) or not MISTAKE_ID.fullmatch(self.edit):
            raise ValueError(f"an edit id is lower-case words joined by hyphens, got {self.edit!r}")


@dataclass(frozen=True)
class TestResult:
    test_id: str                 # stable across runs: "<assignment>::<test function>"
    name: str                    # what the student reads
    assignment: str
    question: str                # the exercise, one gradebook column
    score: float
    max_score: float
    status: str                  # PASSED, FAILED or GRADER_ERROR
    output: str = ""             # for a failure: the symptom, stated precisely, naming no cause
    visibility: str = "visible"
    tags: tuple[str, ...] = ()   # what the test targets (metadata); never evidence of a student's mistake
    grader_detail: str = ""      # traceback of a grader bug: for instructors only
    attempted: bool = True       # False when failed only because the part is missing or still a stub
    diagnoses: tuple[Diagnosis, ...] = ()  # FAILED only: each alone reproduces the student's result
    # On the first failed check of a question only: edits of the student's own definition that together make
    # every check of the question pass (repair/search.py), and how many candidate edits were run to look for them
    # (0: no search; > 0 with no repair: none of those made every check pass), and whether the student's search
    # budget ran out before every planned candidate was run (then "none found" is not a finding).
    repair: tuple[Fix, ...] = ()
    repair_tried: int = 0
    repair_stopped: bool = False

    @property
    def points_lost(self) -> float:
        return round(self.max_score - self.score, 6)


@dataclass(frozen=True)
class QuizItem:
    question_id: str
    score: float
    max_score: float
    feedback: str = ""
    pending: bool = False        # waiting for the instructor's review: its points are neither earned nor lost yet
    # Pending items only, for the reviewer (never in student feedback): see autograder/quiz/model.ItemResult.
    suggested_score: float | None = None  # the keyword rubric's suggestion; never awarded by itself
    suggestion: str = ""                  # why the rubric suggests it, and why no rule could decide
    meaning: str | None = None            # canonical reading: same meaning, same group
    suggestion_certain: bool = False      # the suggested score follows from a rule: the review may take it at once


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
    problems: tuple[str, ...] = ()       # files that could not be graded at all (missing or unreadable)
    unreadable: tuple[str, ...] = ()     # assignments whose file was handed in but could not be read
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
        return _plain(self)

    @classmethod
    def from_dict(cls, data: dict) -> "StudentResult":
        """Load any format up to FORMAT_VERSION; fields a file predates take their defaults."""
        if data.get("format_version", 1) > FORMAT_VERSION:
            raise ValueError(f"result format {data['format_version']} is newer than this kit's {FORMAT_VERSION}")
        tests = tuple(TestResult(**{**t, "tags": tuple(t.get("tags", ())),
                                    "diagnoses": tuple(Diagnosis(**d) for d in t.get("diagnoses", ())),
                                    "repair": tuple(Fix(**f) for f in t.get("repair", ()))})
                      for t in data["tests"])
        quizzes = tuple(QuizResult(**{**q, "items": tuple(QuizItem(**i) for i in q["items"])})
                        for q in data.get("quizzes", []))
        rest = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items()
                if k not in ("tests", "quizzes", "format_version")}
        return cls(tests=tests, quizzes=quizzes, **rest)  # held in memory in the current format


def _plain(value, text=lambda t: t):
    """What dataclasses.asdict gives (tuples become lists), without its deep copies (results are immutable);
    every string passes through `text`."""
    kind = type(value)
    if kind is str:
        return text(value)
    if kind in (tuple, list):
        return [_plain(item, text) for item in value]
    if kind is dict:
        return {key: _plain(item, text) for key, item in value.items()}
    if kind is TestResult and text is safe_text:
        return _stored_test(value)
    names = _field_names(kind)
    if names:
        return {name: _plain(getattr(value, name), text) for name in names}
    return value


_STORED: dict = {}  # TestResult -> its stored form: a row many students share (not attempted) is converted once


def _stored_test(test: "TestResult") -> dict:
    found = _STORED.get(test)
    if found is None:
        found = {name: _plain(getattr(test, name), safe_text) for name in _field_names(TestResult)}
        if len(_STORED) < 1024:
            _STORED[test] = found
    return found


def write_atomic(path: Path, text: str, durable: bool = True) -> None:
    """Write to a temporary file beside the target, then rename: readers see old or new, never half.
    `durable`: on disk before the rename (fsync); without it a crash may lose the file (never half of it
    under its name), which suits what a re-run recomputes cheaply."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.chmod(temporary, 0o644)  # mkstemp makes 0600; outputs are meant to be read and shared
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as out:
            out.write(text)
            if durable:
                out.flush()
                os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def save(result: StudentResult, path: Path, durable: bool = True) -> None:
    """Store a result; every text in it is made safe first (student output may hold anything)."""
    write_atomic(path, json.dumps(_plain(result, safe_text), ensure_ascii=False, sort_keys=True), durable)


def load(path: Path) -> StudentResult:
    return StudentResult.from_dict(json.loads(path.read_text(encoding="utf-8")))
