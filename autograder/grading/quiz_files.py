"""Where a student's quiz answer files (quiz_<quiz id>.yaml) are read from: wherever the code was found.

A student hands them in beside the code: at the top of the submission, in the handout's quizzes/ folder,
or beside a notebook one folder down (nbgrader's `<student>/<assignment>/`, the handout's
`<assignment>/` folders, a zip's top folder). Every such folder is looked at; per file name the one copy
graded is the only one, or the newest when copies differ (the student is told which). A file found in none
of them is looked for in the submission's other sub-folders (an `answers/` folder), so that a file handed
in is never called missing. Links are kept as found, so that grading refuses them with the reason instead
of following them."""
from __future__ import annotations

import os
import re
from pathlib import Path

QUIZ_ANSWERS = re.compile(r"^quiz_[\w.\-]+\.ya?ml$")  # graded beside the code (grading/quizzes.py)
QUIZ_FOLDER = "quizzes"  # the handout keeps the quiz answer templates there
MAX_COMPARED = 256 << 10  # copies larger than an answer file are told apart by size only


def _answer_files(place: Path) -> list[Path]:
    try:
        with os.scandir(place) as entries:
            return sorted(Path(e.path) for e in entries if QUIZ_ANSWERS.match(e.name))
    except OSError:
        return []


def _places(folder: Path, root: Path, code_places: list[Path]) -> list[Path]:
    """root, root/quizzes, then each folder the code came from and its quizzes/ (inside the submission)."""
    places: list[Path] = []
    for base in (root, *code_places):
        for place in (base, base / QUIZ_FOLDER):
            if place in places or place.is_symlink() or not place.is_dir():
                continue
            if place.resolve().is_relative_to(folder.resolve()):
                places.append(place)
    return places


def _content(path: Path) -> bytes | None:
    try:
        if path.is_symlink() or path.stat().st_size > MAX_COMPARED:
            return None
        return path.read_bytes()
    except OSError:
        return None


def _other_folders(root: Path, places: list[Path]) -> list[Path]:
    """The sub-folders of `root` not looked at yet (links left out), each with its quizzes/."""
    try:
        with os.scandir(root) as entries:
            others = sorted(Path(e.path) for e in entries
                            if e.is_dir(follow_symlinks=False) and not e.name.startswith("."))
    except OSError:
        return []
    return [p for other in others for p in (other, other / QUIZ_FOLDER)
            if p not in places and p.is_dir() and not p.is_symlink()]


def find_quiz_files(folder: Path, root: Path, code_places: list[Path]) -> tuple[dict[str, str], list[str]]:
    """(answer file name -> the path graded, notes for the student). `folder` is the student's folder,
    `root` the top of the submission in it, `code_places` the folders the graded code files were in. A name
    found in none of those is looked for in the other sub-folders of `root` (an `answers/` folder), so that
    no file handed in is called missing."""
    found: dict[str, list[Path]] = {}
    places = _places(folder, root, code_places)
    for place in places:
        for path in _answer_files(place):
            found.setdefault(path.name, []).append(path)
    beside_code = set(found)
    for place in _other_folders(root, places):
        for path in _answer_files(place):
            if path.name not in beside_code:
                found.setdefault(path.name, []).append(path)
    chosen, notes = {}, []
    for name, paths in sorted(found.items()):
        def newest(path: Path) -> int:
            try:
                return path.lstat().st_mtime_ns
            except OSError:
                return -1
        best = max(paths, key=newest)  # max keeps the first of equals: the top of the submission first
        chosen[name] = str(best)
        contents = {_content(p) for p in paths}
        if len(paths) > 1 and (len(contents) > 1 or None in contents):
            where = ", ".join(_shown(folder, p.parent) for p in paths)
            notes.append(f"{name} was handed in more than once, with different answers ({where}); graded the "
                         f"newest: {_shown(folder, best)}.")
    return chosen, notes


def _shown(folder: Path, path: Path) -> str:
    relative = path.relative_to(folder).as_posix() if path.is_relative_to(folder) else path.name
    return "the top folder" if relative == "." else relative
