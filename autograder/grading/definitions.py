"""Split a `.py` file that Python cannot parse into its top-level statements, so that one broken definition
costs only itself: the file is then run like a notebook, one piece per cell.

A piece starts at a line in column 0 (a `def`, a `class`, a decorator, an import, an assignment...), except
lines that continue the piece before them (`else:`, `except ...:`, a closing bracket, the line after a
decorator or a backslash). Pieces that do not parse alone are joined with the ones after them until they do
(a docstring or bracket that runs over a column-0 line); a piece that never parses stays alone, and is the
only one that fails. Every piece is padded with blank lines, so error messages give the file's own line.
"""
from __future__ import annotations

import ast
import re

CONTINUES = re.compile(r"^(else\b|elif\b|except\b|finally\b|case\b|[)\]}])")
MAX_JOIN = 40  # pieces tried together before a piece is taken to be the broken one


def _parses(text: str) -> bool:
    try:
        ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def pieces(lines: list[str]) -> list[tuple[int, int]]:
    """(first line, end line) of each candidate piece, 0-based, end exclusive."""
    starts = [0]
    previous = ""
    for number, line in enumerate(lines):
        if number and line.strip() and line[0] not in " \t#" and not CONTINUES.match(line) \
                and not previous.startswith("@") and not previous.endswith("\\"):
            starts.append(number)
        if line.strip() and not line.lstrip().startswith("#"):
            previous = line.rstrip()
    return [(start, end) for start, end in zip(starts, starts[1:] + [len(lines)])]


def split_definitions(text: str) -> list[str]:
    """The file as cells: each parses on its own, except the broken ones."""
    lines = text.splitlines(keepends=True)
    spans = pieces(lines)
    cells, index = [], 0

    def cell(start: int, end: int) -> str:
        return "\n" * start + "".join(lines[start:end])

    while index < len(spans):
        start, end = spans[index]
        taken = index
        if not _parses("".join(lines[start:end])):
            for later in range(index + 1, min(len(spans), index + MAX_JOIN)):
                if _parses("".join(lines[start:spans[later][1]])):
                    taken = later
                    break
        cells.append(cell(start, spans[taken][1]))
        index = taken + 1
    return cells
