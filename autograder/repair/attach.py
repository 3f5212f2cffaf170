"""Repairs into a student's results: a search for each question whose failed checks no diagnosis names (repair/search.py: mode), its answer on the question's first failed check (TestResult.repair, repair_tried).
Students whose checks all pass cost nothing here."""
from __future__ import annotations

import dataclasses
import inspect
import sys

from ..results import FAILED, GRADER_ERROR, Fix, TestResult
from . import search
from .edits import Edit


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
    return tuple(Fix(edit.key, where(source, repair.cell, edit.line, repair.question), shown(edit.old), shown(edit.new))
                 for edit in repair.edits)


def shown(code: str) -> str:
    """Code as short as it can be shown beside a line: a long call's arguments as `...`."""
    return code if len(code) <= 80 else code[:76] + " ..."


def repaired(tests: tuple[TestResult, ...], items: list, handles: dict, server) -> tuple[TestResult, ...]:
    """The tests with each failed question's repair (or the number of edits tried) on its first failed check."""
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
    for (assignment, question), indices in questions.items():
        handle = handles.get(assignment)
        if (assignment, question) in broken or handle is None or handle.source.problem:
            continue
        # a part whose failures no diagnosis names is what the search is for: where one check names a mistake, the
        # others point to it (reporting/explain.py: nearby), and the part has its cause already (mode "all": still)
        unnamed = not any(tests[i].diagnoses for i in indices)
        if not unnamed and search.mode() != "all":
            continue
        checks = checks_of(items, question, assignment, failed)
        if not checks or not any(c.failed for c in checks):
            continue
        try:
            answer = search.search(server, handle.source, question, checks, handle, pairs=unnamed)
        except Exception as problem:  # noqa: BLE001 - the search's own bug: the student keeps the result graded
            print(f"grader: the repair search for {question} failed ({type(problem).__name__}: {problem})",
                  file=sys.stderr)
            continue
        if answer is None:
            continue
        anchor = min(indices, key=lambda i: tests[i].visibility == "hidden")  # a check the student sees, if any
        if isinstance(answer, search.Repair):
            result[anchor] = dataclasses.replace(result[anchor], repair=fixes(handle.source, answer),
                                                 repair_tried=answer.tried)
        elif answer.tried:
            result[anchor] = dataclasses.replace(result[anchor], repair_tried=answer.tried)
    return tuple(result)


__all__ = ["repaired", "Edit"]
