"""nbgrader's course root: collected work is in `submitted/<student id>/<assignment id>/<notebook>.ipynb`,
beside `source/`, `release/`, `autograded/`, `feedback/` and `gradebook.db`, none of which is a student.

Each `submitted/<student>` folder is read as a student folder: an assignment folder named like the kit's
assignment, or the single assignment folder nbgrader made, is found as in any student folder (a
`timestamp.txt` beside the notebooks is nbgrader's and is not mentioned). The latest of a student's
timestamps is kept as the submission time; whether it was late needs the due date (and any extension) in
gradebook.db, which is not read, so `late` stays blank."""
from __future__ import annotations

from pathlib import Path

from ..submissions import visible
from ...results import safe_text
from . import ClassImport, Identity
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
    identities = {}
    for submission in found.submissions:
        when = submitted_at(folder / SUBMITTED / submission.student_id)
        if when:
            identities[submission.student_id] = Identity(submitted_at=when)
    return ClassImport("nbgrader course", found.submissions, summary, identities, found.skipped)


def submitted_at(student: Path) -> str:
    """The latest `timestamp.txt` of a student (one per assignment folder), as nbgrader wrote it."""
    found = []
    for stamp in (student / "timestamp.txt", *student.glob("*/timestamp.txt")):
        try:
            if stamp.is_file() and not stamp.is_symlink():
                with open(stamp, encoding="utf-8", errors="replace") as handle:
                    found.append(safe_text(" ".join(handle.read(64).split()), 40))
        except OSError:
            continue
    return max((text for text in found if text), default="")
