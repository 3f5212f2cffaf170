"""`make assignments`: write every generated file from the masters; `--check` reports stale ones."""
from __future__ import annotations

from pathlib import Path

import nbformat

from .. import paths
from ..grading.results import write_atomic
from .master import read_master
from .render import hidden_test_file, notebook, public_test_file, python_twin


def expected_files() -> dict[Path, str]:
    files: dict[Path, str] = {}
    for name in paths.ASSIGNMENTS:
        master = read_master(paths.SOURCE_DIR / f"{name}.py")
        student_dir, solution_dir = paths.ASSIGNMENTS_DIR / name, paths.SOLUTIONS_DIR / name
        to_tests = f"../../assignments/{name}/tests"
        files[student_dir / f"{name}.ipynb"] = nbformat.writes(notebook(master, True, "tests")) + "\n"
        files[student_dir / f"{name}.py"] = python_twin(master, True, "tests")
        files[solution_dir / f"{name}.ipynb"] = nbformat.writes(notebook(master, False, to_tests)) + "\n"
        files[solution_dir / f"{name}.py"] = python_twin(master, False, to_tests)
        for exercise in master.exercises():
            if master.of("public", exercise):
                files[student_dir / "tests" / f"{exercise}.py"] = public_test_file(master, exercise)
        files[paths.GRADERS_DIR / f"test_{name}.py"] = hidden_test_file(master)
    return files


def stale_files() -> list[Path]:
    return [path for path, text in expected_files().items()
            if not path.exists() or path.read_text(encoding="utf-8") != text]


def generate() -> list[Path]:
    written = []
    for path, text in expected_files().items():
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            write_atomic(path, text)
            written.append(path)
    return written
