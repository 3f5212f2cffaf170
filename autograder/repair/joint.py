"""Two mistakes in two parts, one calling the other: the caller's search again, with the callee's repair made.

A caller's own slip cannot be repaired alone while the function it calls is wrong too: every check of the caller
goes through the callee. Once the callee has a repair, the caller is searched again on the file with that repair
made, and what is shown is true of that file: both edits together make every check of the caller pass."""
from __future__ import annotations

import ast
import dataclasses

from ..grading.submissions import SourceFile
from . import candidates as edit_space
from . import search
from .edits import definition


def calls(source: SourceFile, caller: str, callee: str) -> bool:
    """Whether the definition `caller` names `callee` (a call, or a reference handed on)."""
    place = search.located(source, caller)
    if place is None:
        return False
    root = definition(ast.parse(place[1]), caller)
    return any((isinstance(n, ast.Name) and n.id == callee) or (isinstance(n, ast.Attribute) and n.attr == callee)
               for n in ast.walk(root))


def with_repair(source: SourceFile, repair: search.Repair) -> tuple[SourceFile, int, int] | None:
    """The file with the repair made (the rest as written), the last line of the repaired definition in the
    student's cell, and by how many lines the cell's later lines moved (the definition is written back by ast)."""
    cell = source.cells[repair.cell]
    text = edit_space.apply(cell, repair.question, list(repair.edits))
    root = definition(ast.parse(cell), repair.question)
    if text is None or root is None:
        return None
    made = dataclasses.replace(source, cells=source.cells[:repair.cell] + (text,) + source.cells[repair.cell + 1:])
    return made, root.end_lineno, len(text.splitlines()) - len(cell.splitlines())


def search_with(server, source: SourceFile, question: str, checks: list[search.Check], handle, repair: search.Repair,
                pairs: bool, budget: search.Budget) -> search.Repair | search.NoRepair | None:
    """The caller `question` searched on the file with the callee's `repair` made; a repair found names the
    student's lines (as the file was handed in) and carries the callee's repair (`made_too`)."""
    made = with_repair(source, repair)
    if made is None:
        return None
    edited, end, moved = made
    answer = search.search(server, edited, question, checks, handle, pairs=pairs, budget=budget)
    if not isinstance(answer, search.Repair):
        return answer
    if answer.cell == repair.cell:
        answer = dataclasses.replace(answer, edits=lines_back(answer.edits, end, moved))
    return dataclasses.replace(answer, made_too=(repair,))


def lines_back(edits: tuple, end: int, moved: int) -> tuple:
    """Edits found in the cell with the callee's repair made, on the student's lines: those below the callee's
    definition (which ended on line `end` and is now `moved` lines longer) move back; those above stay."""
    return tuple(dataclasses.replace(e, line=e.line - moved) if e.line > end + moved else e for e in edits)
