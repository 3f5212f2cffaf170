"""`make release`: one archive of what students get, and nothing else.

Only files under assignments/ (student notebooks, .py twins, public checks), the quiz handouts
(questions without answers, answer-file templates), and the generated README.md and requirements.txt
(authoring/handout.py) are packed. Entries have a fixed timestamp so the same content gives the same archive.
"""
from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Callable

from .. import paths
from ..course import Parts, released

FIXED_TIME = (2024, 1, 1, 0, 0, 0)


def student_files(parts: Parts | None = None) -> dict[str, bytes]:
    files = {}
    for name in (parts or Parts(paths.ASSIGNMENTS)).assignments:
        folder = paths.ASSIGNMENTS_DIR / name
        for path in sorted(folder.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and not path.name.startswith("."):
                files[f"{name}/{path.relative_to(folder).as_posix()}"] = path.read_bytes()
    return files


def quiz_handouts(parts: Parts | None = None) -> dict[str, bytes]:
    """Each quiz without its answers (YAML and Markdown) plus the answer-file template students fill in."""
    import tempfile

    from ..quiz import load_quizzes, write_student_files

    files = {}
    with tempfile.TemporaryDirectory() as scratch:
        for quiz in load_quizzes(paths.QUIZZES_DIR).values():
            if parts is not None and not parts.has_quiz(quiz.id):
                continue
            written = write_student_files(quiz, Path(scratch))
            for path in (written.questions_yaml, written.markdown, written.answer_template):
                files[f"quizzes/{path.name}"] = path.read_bytes()
    return files


def build_release(target: Path, extra: Callable[[], dict[str, bytes]] | None = None,
                  parts: Parts | None = None) -> Path:
    """Write the student archive to `target`; `extra` adds more handouts (e.g. quizzes without answers);
    `parts`: only these parts of the course (default: what the course file releases)."""
    from .handout import student_readme, student_requirements

    parts = parts or released()
    files = {**student_files(parts), **quiz_handouts(parts), "README.md": student_readme(parts=parts).encode("utf-8"),
             "requirements.txt": student_requirements().encode("utf-8")}
    if extra is not None:
        files.update(extra())
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_suffix(".tmp")
    with zipfile.ZipFile(temporary, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in sorted(files.items()):
            info = zipfile.ZipInfo(f"attention-kit/{name}", FIXED_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, data)
    temporary.replace(target)
    return target
