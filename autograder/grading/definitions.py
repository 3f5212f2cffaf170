"""Split a `.py` file that Python cannot parse into its top-level statements, so that one broken definition
costs only itself: the file is then run like a notebook, one piece per cell.

Python names the line of the first syntax error it meets. The broken piece is the top-level statement
around that line: from the nearest line before it that starts in column 0 (a `def`, a `class`, a decorator,
an import, an assignment; not `else:`, `except ...:`, a closing bracket or the line after a decorator or a
backslash) up to the next such line. The code before it and the code after it are each parsed again, and
split the same way while they hold errors, so every error costs only its own piece. Every piece is padded
with blank lines, so error messages give the file's own line.
"""
from __future__ import annotations

import ast
import bisect
import re

CONTINUES = re.compile(r"^(else\b|elif\b|except\b|finally\b|case\b|[)\]}])")
MAX_PIECES = 500  # a file with more broken pieces than this is cut no further: the rest is one piece
TRIES = 20        # starts tried on each side of an error to find where its piece begins and ends
MAX_DEPTH = 50    # nor is code before an error that itself keeps reporting errors further up


def starts_of(lines: list[str]) -> list[int]:
    """0-based numbers of the lines that may start a top-level statement."""
    starts = [0]
    previous = ""
    for number, line in enumerate(lines):
        if number and line.strip() and line[0] not in " \t#" and not CONTINUES.match(line) \
                and not previous.startswith("@") and not previous.endswith("\\"):
            starts.append(number)
        if line.strip() and not line.lstrip().startswith("#"):
            previous = line.rstrip()
    return starts


def _error_line(text: str) -> int | None:
    """0-based line of the first syntax error in `text`, or None when it parses."""
    try:
        ast.parse(text)
    except SyntaxError as error:
        return max(0, (error.lineno or 1) - 1)
    except (ValueError, RecursionError, MemoryError):
        return None  # not a syntax error: read_file reports these itself
    return None


def _bounds(lines: list[str], starts: list[int], at: int, low: int, high: int) -> tuple[int, int]:
    """The broken piece around starts[at]: it begins at the nearest start before which the code parses, and
    ends at the nearest start after which the code does not fail on its very first line (a column-0 line
    inside a docstring is no start of a statement). Up to TRIES starts are tried each way."""
    start = max(low, starts[at])
    for back in range(at, max(-1, at - TRIES), -1):
        if starts[back] <= low or _error_line("".join(lines[low:starts[back]])) is None:
            start = max(low, starts[back])
            break
    later = [s for s in starts[at + 1:at + 1 + TRIES] if s < high]
    end = later[0] if later else high
    for candidate in later:
        if _error_line("".join(lines[candidate:high])) != 0:
            end = candidate
            break
    return start, end


def split_definitions(text: str) -> list[str]:
    """The file as cells: each parses on its own, except the broken ones."""
    lines = text.splitlines(keepends=True)
    starts = starts_of(lines)
    cells: list[str] = []

    def piece(low: int, high: int) -> None:
        cells.append("\n" * low + "".join(lines[low:high]))

    def split(low: int, high: int, depth: int) -> None:
        while low < high:
            line = _error_line("".join(lines[low:high]))
            if line is None or depth > MAX_DEPTH or len(cells) >= MAX_PIECES:
                piece(low, high)
                return
            at = bisect.bisect_right(starts, min(high - 1, low + line)) - 1
            start, end = _bounds(lines, starts, at, low, high)
            if start > low:  # the code before the error parses, or is split the same way
                split(low, start, depth + 1)
            piece(start, end)
            low = end

    split(0, len(lines), 0)
    return cells
