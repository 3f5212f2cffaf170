"""nbgrader's course root: collected work is in `submitted/<student id>/<assignment id>/<notebook>.ipynb`,
beside `source/`, `release/`, `autograded/`, `feedback/` and `gradebook.db`, none of which is a student.

Each `submitted/<student>` folder is read as a student folder: an assignment folder named like the kit's
assignment, or the single assignment folder nbgrader made, is found as in any student folder (a
`timestamp.txt` beside the notebooks is nbgrader's and is not mentioned)."""
from __future__ import annotations

from pathlib import Path

from ..submissions import visible
from . import ClassImport
from .folders import import_folders

SUBMITTED = "submitted"
COURSE_PARTS = {"source", "release", "autograded", "feedback", "gradebook.db", "nbgrader_config.py", "exchange",
                "feedback_cache"}


def looks_like(folder: Path) -> bool:
    inner = folder / SUBMITTED
    if not inner.is_dir() or inner.is_symlink():
        return False
    names = {e.name for e in visible(folder)}
    return bool(names & COURSE_PARTS) or names == {SUBMITTED}


def import_nbgrader(folder: Path, stage: Path, assignments: list[str], stubs: dict[str, dict[str, str]]) -> ClassImport:
    found = import_folders(folder / SUBMITTED, stage, assignments, stubs)
    parts = sorted({e.name for e in visible(folder)} & COURSE_PARTS)
    summary = (f"nbgrader course: {len(found.submissions)} students in {SUBMITTED}/"
               + (f" ({', '.join(parts)} are the course's, not students)" if parts else ""))
    return ClassImport("nbgrader course", found.submissions, summary, {}, found.skipped)
