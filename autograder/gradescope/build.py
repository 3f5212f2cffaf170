"""`make gradescope`: pack the engine, hidden graders, reference and pinned requirements into a zip
laid out as Gradescope uses it.

Gradescope unpacks the zip's contents into /autograder/source, runs `setup.sh` there once (as root)
when it builds the image, copies `run_autograder` to /autograder/run_autograder and runs it for every
submission. So `setup.sh`, `run_autograder` and `requirements.txt` sit at the top of the zip, beside
the kit's own folders (autograder/, solutions/, assignments/, quizzes/).
"""
from __future__ import annotations

import zipfile
from pathlib import Path

from .. import paths
from ..course import Parts, released

FILES = Path(__file__).resolve().parent / "files"
FIXED_TIME = (2024, 1, 1, 0, 0, 0)
EXECUTABLE = ("setup.sh", "run_autograder")
TESTS_ONLY = "# tests only"  # a requirement so marked is left out (the test tooling has requirements-test.txt)


COURSE_FILE = "source/course.yaml"  # in the zip: the course file saying which parts it grades (course.py)


def course_file_text(parts: Parts) -> str:
    """The zip's course file: the course's assignments in order (a student's file of one not in the zip is known,
    and left alone), and the parts released, the only ones the zip holds."""
    import yaml

    return ("# Written by `make gradescope`: this zip holds and grades only the parts released here.\n"
            + yaml.safe_dump({"order": list(paths.ASSIGNMENTS), "released": parts.names()}, sort_keys=False))


def kit_files(parts: Parts | None = None) -> dict[str, Path]:
    """What run_autograder needs for the parts released (`parts`, default: the course file's): the engine, the
    released assignments' graders, reference and handout (to recognise untouched files) and the released quizzes
    (their keys); never an unreleased part's grader, solution or key, the student demo class or the kit's own
    tests. A student's file of a part not in the zip is not a part of this course's release, and is left alone."""
    parts = parts or released()
    graders = paths.ROOT / "autograder" / "graders"
    unreleased = {graders / f"test_{name}.py" for name in paths.ASSIGNMENTS if name not in parts.assignments}
    chosen = {}
    for path in sorted((paths.ROOT / "autograder").rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path not in unreleased:
            chosen[path.relative_to(paths.ROOT).as_posix()] = path
    for name in parts.assignments:
        chosen[f"solutions/{name}/{name}.py"] = paths.SOLUTIONS_DIR / name / f"{name}.py"
        for path in sorted((paths.ASSIGNMENTS_DIR / name).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and not path.name.startswith("."):
                chosen[path.relative_to(paths.ROOT).as_posix()] = path
    for path in released_quiz_files(parts):
        chosen[f"quizzes/{path.name}"] = path
    for name in ("requirements.txt", "pyproject.toml"):
        chosen[name] = paths.ROOT / name
    for name in EXECUTABLE:
        chosen[name] = FILES / name
    return chosen


def released_quiz_files(parts: Parts) -> list[Path]:
    """The quiz files of the released quizzes (a file is known by the id inside it, not by its name)."""
    if parts.quizzes is None:
        return sorted(paths.QUIZZES_DIR.glob("*.yaml"))
    if not parts.quizzes:
        return []
    from ..quiz import load_quizzes

    quizzes = load_quizzes(paths.QUIZZES_DIR, formulas=False)
    return sorted(Path(quizzes[q].source_path) for q in parts.quizzes)


class ReviewRefused(ValueError):
    """The review decisions cannot be bundled as they are (one sentence why)."""


def review_decisions(out_dir: Path) -> tuple[Path, int, int]:
    """OUT/review.yaml checked for bundling: (its path, decided groups, groups still undecided). Refuses a file
    the grading would read only in part, so that a regrade never applies fewer decisions than were made."""
    from ..quiz import load_quizzes
    from ..quiz.review import REVIEW_FILE, _groups, load_decisions

    path = out_dir / REVIEW_FILE
    if not path.is_file():
        raise ReviewRefused(f"{out_dir} holds no {REVIEW_FILE}: grade into it, run `make review OUT={out_dir}`, "
                            "then build again")
    decisions = load_decisions(path, load_quizzes(paths.QUIZZES_DIR, formulas=False))
    if decisions.warnings:
        raise ReviewRefused(f"{decisions.warnings[0]}: fix {path} before bundling it")
    import yaml

    groups = [g for _, _, _, g in _groups(yaml.safe_load(path.read_text(encoding="utf-8")))]
    decided = sum(1 for g in groups if g.get("score") not in (None, ""))
    return path, decided, len(groups) - decided


def build_zip(target: Path, review: Path | None = None, parts: Parts | None = None) -> Path:
    """The autograder zip; with `review` (an OUT/review.yaml), the decisions in it ride along as review.yaml at
    the top, which run_autograder applies to every submission graded with this zip (a regrade). `parts`: what
    it grades (default: what the course file releases)."""
    parts = parts or released()
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_suffix(".tmp")
    files = {**kit_files(parts), COURSE_FILE: paths.ROOT / COURSE_FILE}
    if review is not None:
        files[paths.BUNDLED_REVIEW.name] = review
    with zipfile.ZipFile(temporary, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, path in files.items():
            info = zipfile.ZipInfo(name, FIXED_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = (0o755 if name in EXECUTABLE else 0o644) << 16
            data = course_file_text(parts).encode("utf-8") if name == COURSE_FILE else path.read_bytes()
            if name == "requirements.txt":
                data = shipped_requirements(data.decode("utf-8")).encode("utf-8")
            archive.writestr(info, data)
    temporary.replace(target)
    return target


def shipped_requirements(text: str) -> str:
    """requirements.txt without the pins only the kit's own tests need."""
    return "".join(line for line in text.splitlines(keepends=True) if not line.rstrip().endswith(TESTS_ONLY))
