"""`make assignments`: write every generated file from the masters (and the demo class derived from
them); `--check` reports stale ones."""
from __future__ import annotations

from pathlib import Path

import nbformat

from .. import paths
from ..results import write_atomic
from .demo import demo_files
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
            if master.has_public(exercise):
                files[student_dir / "tests" / f"{exercise}.py"] = public_test_file(master, exercise)
        files[paths.GRADERS_DIR / f"test_{name}.py"] = hidden_test_file(master)
    from ..grading import space  # noqa: PLC0415 - draws with hypothesis, only when generating
    files[space.STORE] = space.stored_draws_text()  # the graders' probes, drawn once (grading/space.py)
    # The demo class comes from the files above, so it is made from what is on disk after them.
    return files


def demo_class_files() -> dict[Path, str]:
    return {paths.DEMO_CLASS_DIR / name: text for name, text in demo_files().items()}


def all_files() -> dict[Path, str]:
    return {**expected_files(), **demo_class_files()}


def stale_files() -> list[Path]:
    return [path for path, text in all_files().items()
            if not path.exists() or path.read_text(encoding="utf-8") != text]


def generate() -> list[Path]:
    """Write what changed: assignments, solutions and graders first, then the demo class built from them."""
    written = []
    for files in (expected_files, demo_class_files):
        for path, text in files().items():
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                write_atomic(path, text)
                written.append(path)
    return written
