"""Repairs into a student's results: a search for each question whose failed checks no diagnosis names (repair/search.py:
mode), its answer on the question's first failed check (TestResult.repair, repair_tried, repair_stopped).
Students whose checks all pass cost nothing here; so do parts whose code hung, crashed or hit a limit of the sandbox
(every candidate would too), and files that reach for the grader's own machinery. One budget per student."""
from __future__ import annotations

import dataclasses
import inspect
import sys

from ..grading.circumvention import circumvention
from ..results import FAILED, GRADER_ERROR, Fix, TestResult
from ..sandbox import ChildFailure
from . import joint, search
from .edits import Edit

# Diagnoses of a route no edit of the code should take back: a fused kernel or a rewired watch is not a slip.
NOT_SLIPS = frozenset({"forbidden-api"})


def sandbox_stop(error: BaseException | None) -> str | None:
    """The kind of sandbox failure ("timeout", "crashed", "memory", "garbage", ...) behind a check's failure, if
    one is: the child failed, and the StudentFault raised for it carries that failure as its context."""
    seen = 0
    while error is not None and seen < 20:
        if isinstance(error, ChildFailure):
            return error.kind
        error, seen = error.__cause__ or error.__context__, seen + 1
    return None


def checks_of(items: list, question: str, assignment: str, failed: set[str]) -> list[search.Check]:
    """The hidden checks of one question, from the session's items: those that take only the student's file and
    are worth points (a 0-point flag for the instructor is not a check of the definition)."""
    found = []
    for item in items:
        mark = item.get_closest_marker("question")
        where = item.get_closest_marker("assignment")
        points = item.get_closest_marker("points")
        if not (mark and mark.args and mark.args[0] == question and where and where.args[0] == assignment):
            continue
        if points is not None and points.args and not points.args[0]:
            continue
        if list(inspect.signature(item.function).parameters) != ["student"]:
            continue
        name = item.originalname
        found.append(search.Check(name, item.function, f"{assignment}::{name}" in failed))
    return found


def where(source, cell: int, line: int, question: str) -> str:
    if len(source.cells) == 1:
        return f"line {line}"
    return f"line {line} of the code cell that defines `{question}`"


def fixes(source, repair: search.Repair) -> tuple[Fix, ...]:
    """The repair's edits, after those of the other parts' repairs it needs (`part` naming their part)."""
    made_too = tuple(dataclasses.replace(f, part=other.question) for other in repair.made_too
                     for f in fixes(source, other))
    return made_too + tuple(Fix(edit.key, where(source, repair.cell, edit.line, repair.question), shown(edit.old),
                                shown(edit.new)) for edit in repair.edits)


def shown(code: str) -> str:
    """Code as short as it can be shown beside a line: a long call's arguments as `...`."""
    return code if len(code) <= 80 else code[:76] + " ..."


def repaired(tests: tuple[TestResult, ...], items: list, handles: dict, server,
             stopped: frozenset = frozenset()) -> tuple[TestResult, ...]:
    """The tests with each failed question's repair (or the number of edits tried) on its first failed check.
    `stopped`: (assignment, question) of the parts a check of which ended in a sandbox failure (sandbox_stop): not
    searched. All the searches of one student share one budget (search.Budget)."""
    if not search.searching():
        return tests
    questions: dict[tuple[str, str], list[int]] = {}
    broken = {(t.assignment, t.question) for t in tests if t.status == GRADER_ERROR or not t.attempted}
    for index, test in enumerate(tests):
        if test.status == FAILED and test.attempted and test.score < test.max_score:
            questions.setdefault((test.assignment, test.question), []).append(index)
    if not questions:
        return tests
    failed = {t.test_id for t in tests if t.status == FAILED and t.score < t.max_score}
    result = list(tests)
    budget = None   # started at the first search: a student with nothing to search costs nothing
    answers: dict = {}
    named: dict = {}   # named parts not searched: (handle, checks)
    for (assignment, question), indices in questions.items():
        handle = handles.get(assignment)
        if (assignment, question) in broken | set(stopped) or handle is None or handle.source.problem \
                or handle.fatal or circumvention(handle.source.text):
            continue
        if any(d.mistake in NOT_SLIPS for i in indices for d in tests[i].diagnoses):
            continue
        # a part whose failures no diagnosis names is what the search is for: where one check names a mistake, the
        # others point to it (reporting/explain.py: nearby), and the part has its cause already (mode "all": still)
        unnamed = not any(tests[i].diagnoses for i in indices)
        checks = checks_of(items, question, assignment, failed)
        if not checks or not any(c.failed for c in checks):
            continue
        if not unnamed and search.mode() != "all":
            named[(assignment, question)] = (handle, checks)   # searched only for a caller that needs its repair
            continue
        budget = budget or search.Budget()
        try:
            answer = search.search(server, handle.source, question, checks, handle, pairs=unnamed, budget=budget)
        except Exception as problem:  # noqa: BLE001 - the search's own bug: the student keeps the result graded
            print(f"grader: the repair search for {question} failed ({type(problem).__name__}: {problem})",
                  file=sys.stderr)
            continue
        if answer is None:
            continue
        answers[(assignment, question)] = (answer, handle, checks, unnamed, indices)
    for (assignment, question), (answer, handle, checks, unnamed, indices) in answers.items():
        if isinstance(answer, search.NoRepair) and not answer.stopped:   # a caller of a repaired part: again with it
            answer = jointly(server, answers, named, assignment, question, answer, budget) or answer
        anchor = min(indices, key=lambda i: tests[i].visibility == "hidden")  # a check the student sees, if any
        if isinstance(answer, search.Repair):
            result[anchor] = dataclasses.replace(result[anchor], repair=fixes(handle.source, answer),
                                                 repair_tried=answer.tried)
        elif answer.tried or answer.stopped:
            result[anchor] = dataclasses.replace(result[anchor], repair_tried=answer.tried,
                                                 repair_stopped=answer.stopped)
    return tuple(result)


def jointly(server, answers: dict, named: dict, assignment: str, question: str, answer: search.NoRepair,
            budget: search.Budget) -> search.Repair | search.NoRepair | None:
    """The part searched again on its file with the repair of a part it calls made (repair/joint.py): the first
    repair so found, else the last answer, its candidates counted with the first search's. A called part with a
    named mistake (not searched for itself) is searched here, single edits only, for a repair to make."""
    _, handle, checks, unnamed, _ = answers[(assignment, question)]
    tried, last = answer.tried, None
    callees = [(other, found) for (where_, other), (found, *_) in answers.items() if where_ == assignment
               and other != question and isinstance(found, search.Repair) and not found.made_too]
    callees += [(other, None) for (where_, other) in named if where_ == assignment and other != question]
    for other, found in callees:
        if not joint.calls(handle.source, question, other) or budget.spent():
            continue
        try:
            if found is None:   # the callee's mistake is named: its repair, if one edit makes it
                own_handle, own_checks = named[(assignment, other)]
                found = search.search(server, own_handle.source, other, own_checks, own_handle, pairs=False,
                                      budget=budget)
                tried += getattr(found, "tried", 0)
                if not isinstance(found, search.Repair):
                    continue
            last = joint.search_with(server, handle.source, question, checks, handle, found, unnamed, budget)
        except Exception as problem:  # noqa: BLE001 - the search's own bug: the student keeps the first answer
            print(f"grader: the joint repair search for {question} failed ({type(problem).__name__}: {problem})",
                  file=sys.stderr)
            continue
        if last is not None:
            tried += last.tried
            last = dataclasses.replace(last, tried=tried)
            if isinstance(last, search.Repair) or last.stopped:
                return last
    return last


__all__ = ["repaired", "Edit"]
