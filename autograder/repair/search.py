"""The repair search: small edits of the student's own definition, each judged by every hidden check of it.

For a function or class whose checks failed, candidates (repair/edits.py: single edits, cheapest kinds first,
then pairs of them) are run like any student code, in a sandboxed child, and judged here in the parent by the
SAME hidden test functions on the same inputs. A candidate is a repair only when every check of that
definition passes. Candidates are screened one after the other in one child (the file is loaded again, as a
fresh module, for each); a candidate that passes there is confirmed in a child of its own before it is
believed, so nothing one candidate left behind in the process can make another look right.
"""
from __future__ import annotations

import ast
import dataclasses
import itertools
import os
from dataclasses import dataclass
from typing import Callable

from ..grading.student import StudentFile
from ..grading.submissions import SourceFile
from ..sandbox import ChildFailure
from . import edits as edit_space

SINGLES = 48   # single edits tried per definition, at most
PAIRS = 48     # pairs tried per definition, at most, after no single edit repaired it
PAIR_POOL = 14  # pairs are made of the first this many single edits (cheapest kinds first)
SWITCH = "ATTNKIT_REPAIR"   # "off": no repair search (the bench's baseline)


@dataclass(frozen=True)
class Check:
    name: str                              # the test function's name, for the instructor
    run: Callable[[StudentFile], None]     # the hidden test function: raises when the check fails
    failed: bool                           # failed on the student's own code


@dataclass(frozen=True)
class Repair:
    question: str          # the definition repaired
    cell: int              # the cell it is in (0 for a .py file)
    edits: tuple            # edit_space.Edit, in the order of the code
    checks: int            # the number of checks that now all pass
    tried: int             # candidates run


@dataclass(frozen=True)
class NoRepair:
    question: str
    tried: int
    singles: int           # single edits the definition has
    pairs: bool            # whether pairs were tried too


def searching() -> bool:
    return os.environ.get(SWITCH) != "off"


def located(source: SourceFile, name: str) -> tuple[int, str] | None:
    """(cell index, cell text) of the definition of `name` that wins when the file runs: the last one."""
    for index in range(len(source.cells) - 1, -1, -1):
        try:
            tree = ast.parse(source.cells[index])
        except (SyntaxError, ValueError):
            continue
        if edit_space.definition(tree, name) is not None:
            return index, source.cells[index]
    return None


class ScreenFile(StudentFile):
    """A student file whose child is kept from one candidate to the next: each candidate is loaded into it as a
    fresh module (a crash or hang costs the child, and the next candidate gets a new one)."""

    def use(self, source: SourceFile) -> None:
        self.source = source
        self.fatal = None
        self.output = []
        if self.child is not None and self.child.usable:
            limits = self.server.config.limits
            try:
                reply = self.child.request({"op": "load", "module": source.assignment, "filename": source.filename,
                                            "cells": list(source.cells)}, limits.load_seconds)
                self.load_errors = [e for e in (reply.get("errors") or []) if isinstance(e, dict)]
            except ChildFailure:
                self.child = None


def passes(handle: StudentFile, checks: list[Check]) -> bool:
    """Whether every check passes on this handle's code (any exception from a check is a failure)."""
    for check in checks:
        try:
            check.run(handle)
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException:  # noqa: BLE001 - a StudentFault, a grader's assert on strange output: not a pass
            return False
    return True


def candidates(cell: str, name: str) -> tuple[list[edit_space.Edit], list[tuple[edit_space.Edit, ...]]]:
    """The single edits to try, and the pairs (made of the cheapest singles, at two different places)."""
    found = edit_space.singles(cell, name)
    pool = found[:PAIR_POOL]
    pairs = [(a, b) for a, b in itertools.combinations(pool, 2) if a.index != b.index]
    pairs.sort(key=lambda pair: (pair[0].rank + pair[1].rank, pair[0].index, pair[1].index))
    return found[:SINGLES], pairs[:PAIRS]


def search(server, source: SourceFile, question: str, checks: list[Check]) -> Repair | NoRepair | None:
    """The first candidate, single edits before pairs, that makes every check of `question` pass; NoRepair when
    none in the budget does; None when the definition is not in the file (nothing to edit)."""
    place = located(source, question)
    if place is None:
        return None
    index, cell = place
    ordered = sorted(checks, key=lambda c: not c.failed)   # the failed checks first: most candidates fail there
    singles, pairs = candidates(cell, question)
    screen = ScreenFile(server, source)
    tried = 0
    try:
        for chosen in [(e,) for e in singles] + pairs:
            text = edit_space.apply(cell, question, list(chosen))
            if text is None:
                continue
            edited = dataclasses.replace(source, cells=source.cells[:index] + (text,) + source.cells[index + 1:])
            tried += 1
            screen.use(edited)
            if passes(screen, ordered) and confirmed(server, edited, ordered):
                return Repair(question, index, tuple(sorted(chosen, key=lambda e: (e.line, e.index))),
                              len(checks), tried)
    finally:
        screen.close()
    return NoRepair(question, tried, len(edit_space.singles(cell, question)), bool(pairs))


def confirmed(server, source: SourceFile, checks: list[Check]) -> bool:
    """The candidate passes every check again in a child of its own."""
    handle = StudentFile(server, source)
    try:
        return passes(handle, checks)
    finally:
        handle.close()
