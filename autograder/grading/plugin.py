"""pytest plugin: hidden tests run here, in the trusted process, once collected for a whole shard.

Each test is parametrised by a session-scoped `submission`, so pytest collects once and groups
the items student by student. Points, visibility and tags (what a test targets) are markers; the
diagnoses of a failure travel on its StudentFault (docs/diagnosis.md). When the last test of a student
reports, that student's result file is written atomically.
"""
from __future__ import annotations

import dataclasses
import errno
import sys
import traceback
from collections import defaultdict
from pathlib import Path
from typing import Callable

import pytest

from .. import profiling
from . import startup_gc
from ..sandbox import ForkServer
from .diagnose import explain_failure
from ..results import FAILED, GRADER_ERROR, PASSED, Diagnosis, StudentResult, TestResult, safe_text, save
from .faults import ExplainedElsewhere
from ..repair.attach import repaired, sandbox_stop
from .student import StudentFault, StudentFile
from .submissions import Submission, result_stem

MARKERS = {
    "assignment(name)": "the assignment a hidden test module grades",
    "question(name)": "the exercise (gradebook column) a test belongs to",
    "points(n)": "points the test is worth",
    "visibility(v)": "Gradescope visibility: visible, hidden, after_due_date, after_published",
    "tags(*names)": "what the test targets (metadata; the report counts diagnoses, not tags)",
}


def marker_arg(item: pytest.Item, name: str, default=None):
    mark = item.get_closest_marker(name)
    return mark.args[0] if mark and mark.args else default


def check_title(doc: str | None, fallback: str) -> str:
    """What a check establishes: its docstring's first paragraph, whole (a title wrapped over two lines of the
    source is one sentence, never its first line alone)."""
    paragraph = (doc or "").strip().split("\n\n", 1)[0]
    return " ".join(paragraph.split()) or fallback


def test_identity(item: pytest.Item) -> dict:
    mark = item.get_closest_marker("tags")
    return {
        "test_id": f"{marker_arg(item, 'assignment')}::{item.originalname}",
        "name": check_title(item.function.__doc__, item.originalname),
        "assignment": marker_arg(item, "assignment"),
        "question": marker_arg(item, "question", item.originalname),
        "max_score": float(marker_arg(item, "points", 1)),
        "visibility": marker_arg(item, "visibility", "visible"),
        "tags": tuple(mark.args) if mark else (),
    }


def checked_diagnoses(found: object) -> tuple[Diagnosis, ...]:
    """A fault's diagnoses as recorded: Diagnosis objects only, each mistake once, in the order given."""
    if not isinstance(found, (tuple, list)) or not all(isinstance(d, Diagnosis) for d in found):
        raise TypeError(f"StudentFault.diagnoses must be a tuple of Diagnosis, got {found!r:.300}")
    kept: dict[str, Diagnosis] = {}
    for diagnosis in found:
        kept.setdefault(diagnosis.mistake, diagnosis)
    return tuple(kept.values())


def disk_full(problem: BaseException) -> bool:
    return isinstance(problem, OSError) and problem.errno in (errno.ENOSPC, errno.EDQUOT)


_UNOPENED: dict[tuple, TestResult] = {}  # (test order, problem) -> the "not attempted" row of that test


class GradingPlugin:
    def __init__(self, submissions: list[Submission], results_dir: Path, server: ForkServer,
                 fingerprints: dict[str, str] | None = None,
                 on_done: Callable[[StudentResult], None] = lambda result: None) -> None:
        self.submissions = {s.student_id: s for s in submissions}
        self.fingerprints = fingerprints or {}
        self.results_dir = results_dir
        self.server = server
        self.on_done = on_done
        self.expected: dict[str, int] = {}
        self.items: dict[str, list[pytest.Item]] = {}  # for a grader-problem row, should recording fail
        self.recorded: dict[str, list[tuple[tuple, TestResult]]] = defaultdict(list)
        # student -> {test order: questions whose mistake explains that failed test} (ExplainedElsewhere)
        self.elsewhere: dict[str, dict[tuple, tuple[str, ...]]] = defaultdict(dict)
        # (assignment, question) of the parts a check of which ended in a sandbox failure: no repair search there
        self.stopped: dict[str, set[tuple[str, str]]] = defaultdict(set)
        self.open_files: dict[str, dict[str, StudentFile]] = {}
        # (student, assignment) -> its checks not yet recorded: at 0 the file's child is ended (see _record)
        self.checks_left: dict[tuple[str, str], int] = {}
        self.finished = 0  # a count, not the results: memory must not grow with the class
        self.collect_only = False  # only learn the hidden tests' identities (see identities_of)
        self.identities: list[tuple[tuple, dict]] = []
        self.session_errors: list[str] = []  # why collection or the session failed, for the grader-problem message

    # --- collection -------------------------------------------------------------------------
    def pytest_configure(self, config: pytest.Config) -> None:
        for spec, text in MARKERS.items():
            config.addinivalue_line("markers", f"{spec}: {text}")

    def pytest_generate_tests(self, metafunc: pytest.Metafunc) -> None:
        if "submission" in metafunc.fixturenames:
            ids = list(self.submissions)
            metafunc.parametrize("submission", ids, indirect=True, scope="session",
                                 ids=[result_stem(i) for i in ids])

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.session_errors.append(f"collecting {report.nodeid or 'the hidden tests'}: {report.longreprtext}")

    def pytest_internalerror(self, excrepr) -> None:
        self.session_errors.append(f"pytest internal error: {excrepr}")

    def pytest_keyboard_interrupt(self, excinfo) -> None:
        self.session_errors.append(f"interrupted: {excinfo.getrepr(style='short')}")

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        profiling.event("hidden tests collected", items=len(items))
        startup_gc.resume()  # torch and the hidden tests are imported: collect again (startup_gc.py)
        if self.collect_only:
            self.identities = [((str(i.path), i.function.__code__.co_firstlineno), test_identity(i)) for i in items]
            return
        # A part not being graded (not released) is not in the submission: its tests do not run for it.
        items[:] = [i for i in items if marker_arg(i, "assignment") in
                    self.submissions[i.callspec.params["submission"]].files]
        for item in items:
            student = item.callspec.params["submission"]
            self.expected[student] = self.expected.get(student, 0) + 1
            self.items.setdefault(student, []).append(item)
            file = (student, marker_arg(item, "assignment"))
            self.checks_left[file] = self.checks_left.get(file, 0) + 1
        for student in self.submissions:  # a student with no test at all is finished already
            if student not in self.expected:
                self._finish(student)

    # --- fixtures ---------------------------------------------------------------------------
    @pytest.fixture(scope="session")
    def submission(self, request: pytest.FixtureRequest):
        student = request.param
        self.open_files[student] = {}
        self.server.ensure_healthy()  # a fork server a classmate broke is replaced before this student
        yield self.submissions[student]
        for handle in self.open_files.pop(student, {}).values():
            handle.close(settle=False)  # the fork server cleans up while the next student starts

    @pytest.fixture
    def student(self, submission: Submission, request: pytest.FixtureRequest) -> StudentFile:
        assignment = marker_arg(request.node, "assignment")
        handles = self.open_files.setdefault(submission.student_id, {})
        if assignment not in handles:
            handles[assignment] = StudentFile(self.server, submission.files[assignment])
        return handles[assignment]

    # --- diagnosis --------------------------------------------------------------------------
    @pytest.hookimpl(wrapper=True)
    def pytest_pyfunc_call(self, pyfuncitem: pytest.Function):
        """A failed test's fault gets the diagnoses of the calls the test made (grading/diagnose.py); a test
        that passes costs nothing here."""
        student = pyfuncitem.funcargs.get("student")
        start = len(student.diagnoser) if isinstance(student, StudentFile) else None
        try:
            return (yield)
        except StudentFault as fault:
            if start is not None and fault.attempted:
                fault.diagnoses = explain_failure(student, start, fault)
            raise

    # --- scoring ----------------------------------------------------------------------------
    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo) -> pytest.TestReport:
        """Build the report ourselves: pytest's default renders a long traceback for every failure,
        which nobody reads here (students get the message, instructors the grader-bug traceback)."""
        error = call.excinfo.value if call.excinfo else None
        outcome = "passed" if error is None else "failed"
        report = pytest.TestReport(item.nodeid, item.location, {k: 1 for k in item.keywords}, outcome,
                                   None if error is None else f"{type(error).__name__}: {error}", call.when,
                                   [], call.duration, call.start, call.stop, user_properties=item.user_properties)
        if call.when == "call" or (call.when == "setup" and error is not None):
            try:
                self._record(item, error)
            except Exception as problem:  # noqa: BLE001 - the fault wall: this student's row, never the class's
                if disk_full(problem):
                    raise  # OUT's disk, not this student: the run stops and resumes (exit 3)
                self._record(item, problem)
        return report

    def _record(self, item: pytest.Item, error: BaseException | None) -> None:
        """Only a StudentFault (or an explicit pytest.fail) is the student's failure. Anything else,
        a bare assert included (a grader's sanity check), is a grader problem; so is a fault whose
        diagnoses are malformed, since a cause must never be guessed from a grader's mistake."""
        identity = test_identity(item)
        status, output, detail, attempted, diagnoses = PASSED, "", "", True, ()
        if isinstance(error, (StudentFault, pytest.fail.Exception)):
            status, output = FAILED, str(error).strip() or "the check failed"
            detail = str(getattr(error, "detail", "") or "")  # tolerances: the instructor's view only
            attempted = getattr(error, "attempted", True)
            try:
                diagnoses = checked_diagnoses(getattr(error, "diagnoses", ()))
            except TypeError as malformed:
                error = malformed
        if error is not None and not isinstance(error, (StudentFault, pytest.fail.Exception)):
            status, attempted = GRADER_ERROR, True
            output = ("This check could not run because of a problem in the grader, not in your code. "
                      "Your instructor has been told.")
            detail = "".join(traceback.format_exception(error))
        score = identity["max_score"] if status == PASSED else 0.0
        student = item.callspec.params["submission"]
        order = (str(item.path), item.function.__code__.co_firstlineno)
        if status == FAILED and attempted and isinstance(error, ExplainedElsewhere):
            self.elsewhere[student][order] = error.questions
        if status == FAILED and sandbox_stop(error):
            self.stopped[student].add((identity["assignment"], identity["question"]))
        self.recorded[student].append((order, TestResult(score=score, status=status, output=output,
                                                         grader_detail=detail, attempted=attempted,
                                                         diagnoses=diagnoses if attempted else (), **identity)))
        self._file_checked(student, identity["assignment"])
        if len(self.recorded[student]) == self.expected.get(student):
            self._finish(student)

    def _file_checked(self, student: str, assignment: str) -> None:
        """After a file's last check its child is ended at once, so the fork server cleans up after it while
        this process records the results and starts the next check. The handle stays (its output, load errors
        and calls are read when the result is built)."""
        file = (student, assignment)
        left = self.checks_left.get(file, 0) - 1
        self.checks_left[file] = left
        if left <= 0:
            del self.checks_left[file]
            handle = self.open_files.get(student, {}).get(assignment)
            if handle is not None:
                try:
                    handle.close(settle=False)
                except Exception as exc:  # noqa: BLE001 - closed again at the student's end; never this check's fault
                    print(f"grader: ending a child after its last check failed ({type(exc).__name__}: {exc})",
                          file=sys.stderr)

    def _finish(self, student: str, durable: bool = True) -> None:
        """Write the student's result. Whatever goes wrong here is this student's grader problem: the
        worker goes on with the next student."""
        path = self.results_dir / f"{result_stem(student)}.json"
        try:
            result = self._result(student)
            save(result, path, durable)
        except Exception as problem:  # noqa: BLE001 - the fault wall between students
            if disk_full(problem):
                raise  # OUT's disk, not this student: the run stops and resumes (exit 3)
            result = self._grader_problem(student, problem)
            save(result, path)
        self.items.pop(student, None)
        self.finished += 1
        self.on_done(result)

    def _result(self, student: str) -> StudentResult:
        submission = self.submissions[student]
        handles = self.open_files.get(student, {})
        printed = "\n".join(text for h in handles.values() for text in h.output)
        notes = tuple(dict.fromkeys(n for f in submission.files.values() for n in f.notes))  # a note once
        for handle in handles.values():
            notes += tuple(f"{handle.source.filename}: running the file stopped at {safe_text(e.get('type'), 100)}: "
                           f"{safe_text(e.get('message'), 200)}" for e in handle.load_errors[:1])
        problems = tuple(f.problem for f in submission.files.values() if f.problem)
        unreadable = tuple(name for name, f in submission.files.items() if f.problem and f.filename is not None)
        recorded = sorted(self.recorded.pop(student, []), key=lambda pair: pair[0])
        tests = one_charge([test for _, test in recorded],
                           [self.elsewhere.get(student, {}).get(order) for order, _ in recorded])
        tests = repaired(tests, self.items.get(student, []), handles, self.server,  # failed questions only
                         frozenset(self.stopped.pop(student, ())))
        self.elsewhere.pop(student, None)
        return StudentResult(student, tests, notes=notes, problems=problems, unreadable=unreadable,
                             printed=safe_text(printed, 16_384), isolation=self.server.isolation,
                             fingerprint=self.fingerprints.get(student, ""))

    def finish_unopened(self, student: str, identities: list[tuple[tuple, dict]]) -> None:
        """A student without a single gradable file: every hidden test is "not attempted" with the file's
        problem, exactly the row grading would give, without a session, a child or a probe."""
        files = self.submissions[student].files
        for order, identity in identities:
            if identity["assignment"] not in files:  # a part not being graded (course.py)
                continue
            problem = (files[identity["assignment"]].problem or "").strip() or "the check failed"
            key = (order, problem)
            test = _UNOPENED.get(key)
            if test is None:  # the same test object for every student with this problem: stored once (results._plain)
                test = TestResult(score=0.0, status=FAILED, output=problem, attempted=False, **identity)
                if len(_UNOPENED) < 4096:
                    _UNOPENED[key] = test
            self.recorded[student].append((order, test))
        self._finish(student, durable=False)  # a re-run after a crash answers it again in a millisecond

    def _grader_problem(self, student: str, problem: BaseException) -> StudentResult:
        """A row for a student whose result could not be built or written: every test the student has is a
        grader problem (0 points, flagged for the instructor), with the reason."""
        detail = "".join(traceback.format_exception(problem))
        output = ("This check could not be recorded because of a problem in the grader, not in your code. "
                  "Your instructor has been told.")
        tests = []
        for item in sorted(self.items.get(student, ()), key=lambda i: (str(i.path), i.function.__code__.co_firstlineno)):
            identity = test_identity(item)
            tests.append(TestResult(score=0.0, status=GRADER_ERROR, output=output, grader_detail=detail, **identity))
        self.recorded.pop(student, None)
        self.elsewhere.pop(student, None)
        self.stopped.pop(student, None)
        return StudentResult(student, tuple(tests), problems=(f"grader problem while recording this student: "
                                                              f"{type(problem).__name__}",),
                             isolation=self.server.isolation, fingerprint=self.fingerprints.get(student, ""))


def one_charge(tests: list[TestResult], explained_by: list[tuple[str, ...] | None]) -> tuple[TestResult, ...]:
    """One mistake, one charge (docs/grading.md): a failed check whose failure a mistake in other questions explains
    (`explained_by[i]`: those questions) is not charged when one of them already lost points for that mistake;
    it is then scored as passed, and its message says where the mistake is charged. When none of them lost
    points, the check is the only place that sees the mistake, and it stays failed."""
    resolved = []
    for test, questions in zip(tests, explained_by):
        if questions and test.status == FAILED and test.attempted:
            charged = sorted({t.question for t in tests if t.assignment == test.assignment and t.question in questions
                              and t.question != test.question and t.attempted and t.score < t.max_score})
            if charged:
                names = " and ".join(f"`{q}`" for q in charged)
                note = (f"Not charged here: the mistake that explains this is charged in {names} (one mistake, "
                        "one charge).\n")
                test = dataclasses.replace(test, score=test.max_score, status=PASSED, output=note + test.output,
                                           diagnoses=())
        resolved.append(test)
    return tuple(resolved)
