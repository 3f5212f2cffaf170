"""Read a master (jupytext percent format) into cells that know their role and exercise.

Roles: markdown (no role), `setup` (imports for students), `solution` (code with BEGIN/END SOLUTION
regions), `public` (otter test cases students run), `hidden` and `hidden-setup` (the hidden pytest
grader), `explore` (hands-on cells from the trainer's guide), `spec` (an exercise's declared spec: one dict
literal from which its hidden checks are generated, authoring/spec_render.py).
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import jupytext

ROLES = {"markdown", "setup", "solution", "public", "hidden", "hidden-setup", "explore", "spec"}
SOLUTION_REGION = re.compile(r"^(?P<indent>[ \t]*)# BEGIN SOLUTION\n.*?^[ \t]*# END SOLUTION\n?", re.M | re.S)
POINTS = re.compile(r"@pytest\.mark\.points\((\d+(?:\.\d+)?)\)")


class MasterError(ValueError):
    """A master file breaks the authoring rules; the message names the file and the cell."""


@dataclass(frozen=True)
class Cell:
    role: str
    source: str
    exercise: str | None = None


@dataclass(frozen=True)
class Master:
    name: str
    cells: tuple[Cell, ...]

    def exercises(self) -> list[str]:
        seen: list[str] = []
        for cell in self.cells:
            if cell.exercise and cell.exercise not in seen:
                seen.append(cell.exercise)
        return seen

    def points(self) -> dict[str, float]:
        """Points per exercise: the sum of its hidden tests' points markers (declared once, there)."""
        totals = {name: 0.0 for name in self.exercises()}
        for cell in self.cells:
            if cell.role == "hidden" and cell.exercise:
                totals[cell.exercise] += sum(float(p) for p in POINTS.findall(cell.source))
            if cell.role == "spec" and cell.exercise:
                totals[cell.exercise] += spec_points(cell.source)
        return totals

    def has_public(self, exercise: str) -> bool:
        """Students get a public check: written in a public cell, or generated from a spec."""
        return bool(self.of("public", exercise) or self.of("spec", exercise))

    def of(self, role: str, exercise: str | None = None) -> list[Cell]:
        return [c for c in self.cells if c.role == role and (exercise is None or c.exercise == exercise)]


def spec_points(text: str) -> float:
    """A spec cell's `points` (1 unless given); its syntax is checked where its checks are made (spec_render.py)."""
    try:
        declared = ast.literal_eval(text.strip())
    except (ValueError, SyntaxError):
        return 0.0
    points = declared.get("points", 1) if isinstance(declared, dict) else 0
    return float(points) if isinstance(points, (int, float)) else 0.0


def read_master(path: Path) -> Master:
    """The master at `path`, read once per version of the file (a Master is immutable: readers share it)."""
    stat = Path(path).stat()
    return _read_master(Path(path), stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=32)
def _read_master(path: Path, _mtime: int, _size: int) -> Master:
    notebook = jupytext.read(path, fmt="py:percent")
    cells = []
    for index, cell in enumerate(notebook.cells):
        role = "markdown" if cell.cell_type == "markdown" else cell.metadata.get("role")
        if role not in ROLES:
            raise MasterError(f"{path.name}: cell {index} has role {role!r}; expected one of {sorted(ROLES)}")
        source = cell.source.strip("\n")
        if role == "solution" and "# BEGIN SOLUTION" not in source:
            raise MasterError(f"{path.name}: solution cell {index} has no '# BEGIN SOLUTION' region")
        cells.append(Cell(role, source, cell.metadata.get("exercise")))
    return Master(path.stem, tuple(cells))


def stub(source: str, exercise: str) -> str:
    """Replace each solution region by a prompt that fails loudly until the student fills it in."""
    def prompt(match: re.Match) -> str:
        indent = match.group("indent")
        return (f"{indent}# YOUR CODE HERE\n"
                f"{indent}raise NotImplementedError(\"{exercise}: replace this line with your code\")\n")
    return SOLUTION_REGION.sub(prompt, source + "\n").rstrip("\n")


def solution(source: str) -> str:
    """The instructor version: the code with its BEGIN/END SOLUTION marker lines removed."""
    return "\n".join(line for line in source.splitlines()
                     if line.strip() not in ("# BEGIN SOLUTION", "# END SOLUTION"))
