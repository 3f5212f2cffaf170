"""The single source: generated files are current, faithful to the masters and leak no solution."""
from __future__ import annotations

import nbformat
import pytest

from autograder import paths
from autograder.authoring.generate import expected_files, stale_files
from autograder.authoring.master import MasterError, read_master, solution, stub


def solution_lines(name: str) -> list[str]:
    """Lines that only the solution has: the insides of every BEGIN/END SOLUTION region, less those the
    lesson text gives away on purpose (the graded interface, such as `self.W = nn.Linear(...)`)."""
    master = read_master(paths.SOURCE_DIR / f"{name}.py")
    text = "\n".join(c.source for c in master.of("markdown"))
    lines = []
    for cell in master.of("solution"):
        inside = False
        for line in cell.source.splitlines():
            if line.strip() == "# BEGIN SOLUTION":
                inside = True
            elif line.strip() == "# END SOLUTION":
                inside = False
            elif inside and len(line.strip()) > 8 and not line.strip().startswith("#") and line.strip() not in text:
                lines.append(line.strip())
    return lines


def test_generated_files_are_up_to_date():
    stale = [str(p.relative_to(paths.ROOT)) for p in stale_files()]
    assert not stale, f"run `make assignments`: out of date: {stale}"


def test_generation_is_reproducible():
    assert expected_files() == expected_files()


@pytest.mark.parametrize("name", paths.ASSIGNMENTS)
def test_student_files_hold_no_solution_code(name):
    lines = solution_lines(name)
    assert lines, "every master has solution regions"
    folder = paths.ASSIGNMENTS_DIR / name
    for path in folder.rglob("*.*"):
        text = path.read_text(encoding="utf-8")
        leaked = [line for line in lines if line in text]
        assert not leaked, f"{path.name} contains solution code: {leaked[:3]}"
    solution_text = (paths.SOLUTIONS_DIR / name / f"{name}.py").read_text(encoding="utf-8")
    assert all(line in solution_text for line in lines)


@pytest.mark.parametrize("folder", [paths.ASSIGNMENTS_DIR, paths.SOLUTIONS_DIR])
@pytest.mark.parametrize("name", paths.ASSIGNMENTS)
def test_python_twin_matches_notebook(folder, name):
    notebook = nbformat.read(folder / name / f"{name}.ipynb", as_version=4)
    twin = (folder / name / f"{name}.py").read_text(encoding="utf-8")
    code = [c.source for c in notebook.cells
            if c.cell_type == "code" and not {"kit-init", "kit-check"} & set(c.metadata.get("tags", []))]
    assert code
    for source in code:
        for line in source.splitlines():
            assert line.strip() in twin, f"notebook line missing from the .py twin: {line!r}"
    assert twin.count("def ") >= sum(s.count("def ") for s in code)


@pytest.mark.parametrize("name", paths.ASSIGNMENTS)
def test_every_exercise_has_points_checks_and_text(name):
    master = read_master(paths.SOURCE_DIR / f"{name}.py")
    points = master.points()
    assert all(p > 0 for p in points.values()), points
    for exercise in master.exercises():
        assert any(c.role == "markdown" for c in master.cells if c.exercise == exercise)
        if master.of("solution", exercise):   # its own public cell, or the one its spec generates
            assert master.has_public(exercise), f"{exercise} has no public check"
            check = paths.ASSIGNMENTS_DIR / name / "tests" / f"{exercise}.py"
            assert check.is_file() and f"({exercise}):" in check.read_text(encoding="utf-8"), check


def test_stub_replaces_solution_and_keeps_signature():
    source = "def f(x):\n    \"\"\"doc\"\"\"\n    # BEGIN SOLUTION\n    return x\n    # END SOLUTION"
    assert stub(source, "f") == ("def f(x):\n    \"\"\"doc\"\"\"\n    # YOUR CODE HERE\n"
                                 "    raise NotImplementedError(\"f: replace this line with your code\")")
    assert solution(source) == "def f(x):\n    \"\"\"doc\"\"\"\n    return x"


def test_master_with_unknown_role_is_rejected(tmp_path):
    bad = tmp_path / "broken.py"
    bad.write_text('# %% role="solutoin"\nx = 1\n')
    with pytest.raises(MasterError, match="broken.py: cell 0 has role 'solutoin'"):
        read_master(bad)
