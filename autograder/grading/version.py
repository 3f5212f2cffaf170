"""What results kept between runs depend on, as short digests: a change in any of it regrades.

Two things are kept in OUT/.state and reused by a later run: each student's result (keyed by the
grader version and the student's files) and the verdicts on quiz code answers. A kept result must never
outlive a change of what produced it: the hidden tests, the engine, the sandbox, the diagnosis, the
reference solutions, the handout the students started from (it decides which of a .py/.ipynb pair is
graded and what counts as untouched), the kit's version, and the Python and torch that computed it.
"""
from __future__ import annotations

import hashlib
import importlib.metadata
import sys
from pathlib import Path

from .. import paths



def kit() -> Path:
    return paths.ROOT / "autograder"


def environment() -> str:
    """The kit's version and the interpreter and torch it runs on (without importing torch)."""
    project = paths.ROOT / "pyproject.toml"  # absent from the Gradescope zip, whose code is hashed anyway
    try:
        torch = importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        torch = "none"
    return "\n".join([project.read_text(encoding="utf-8") if project.is_file() else "no pyproject",
                      sys.version, f"torch {torch}"])


def digest_of(files: list[Path], *texts: str) -> str:
    digest = hashlib.sha256()
    for text in texts:
        digest.update(text.encode())
    for file in files:
        name = file.relative_to(paths.ROOT) if file.is_relative_to(paths.ROOT) else file  # same kit elsewhere: same
        digest.update(b"\0" + name.as_posix().encode() + b"\0")
        digest.update(file.read_bytes())
    return digest.hexdigest()[:16]


def python_files(*folders: Path) -> list[Path]:
    return [file for folder in folders for file in sorted(folder.rglob("*.py"))]


def handout_files() -> list[Path]:
    return sorted(p for p in paths.ASSIGNMENTS_DIR.rglob("*") if p.suffix in (".py", ".ipynb") and p.is_file()
                  and "__pycache__" not in p.parts) if paths.ASSIGNMENTS_DIR.is_dir() else []


def grader_version(graders_dir: Path = paths.GRADERS_DIR) -> str:
    """Changes whenever a hidden test, the grading engine, the diagnosis, a reference solution, the handout,
    the kit's version, Python or torch changes."""
    code = kit()
    files = python_files(graders_dir, code / "grading", code / "sandbox", code / "diagnosis", paths.SOLUTIONS_DIR)
    files += [code / "results.py", code / "paths.py", *handout_files()]
    return digest_of(files, environment())


def code_verdict_version() -> str:
    """What a kept verdict on a quiz code answer depends on beyond the question and the answer: how
    answers are read and run (quiz/code_answers.py, quiz/notation.py), the sandbox that runs them, the
    kit's version, Python and torch."""
    code = kit()
    files = [code / "quiz" / "code_answers.py", code / "quiz" / "notation.py", *python_files(code / "sandbox")]
    return digest_of(files, environment())
