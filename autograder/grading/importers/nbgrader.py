"""nbgrader's course root: collected work is in `submitted/<student id>/<assignment id>/<notebook>.ipynb`,
beside `source/`, `release/`, `autograded/`, `feedback/` and `gradebook.db`, none of which is a student.

Each `submitted/<student>` folder is read as a student folder: an assignment folder named like the kit's
assignment, or the single assignment folder nbgrader made, is found as in any student folder (a
`timestamp.txt` beside the notebooks is nbgrader's and is not mentioned). The latest of a student's
timestamps is kept as the submission time.

The course's gradebook.db is read (read-only, nbgrader_db.py) for each student's name, e-mail and LMS user
id, so canvas.csv and the roster join can use them, and for the due dates that say who was late. A database
that cannot be read is said in the summary line and changes nothing else."""
from __future__ import annotations

from pathlib import Path

from ..submissions import visible
from ...results import safe_text
from . import ClassImport, Identity
from .folders import import_folders
from .nbgrader_db import lateness, part_arrivals, read_gradebook
from .times import has_zone, parse_time

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
    gradebook = read_gradebook(folder / "gradebook.db")
    if gradebook.students:
        summary += "; names, e-mails and LMS user ids read from gradebook.db"
    elif gradebook.trouble:
        summary += f"; gradebook.db not read ({gradebook.trouble})"
    identities, late, unknown, extended, zoneless = {}, 0, 0, 0, 0
    for submission in found.submissions:
        stamps = timestamps(folder / SUBMITTED / submission.student_id)
        when = max(stamps.values(), key=lambda s: (parse_time(s) is not None, parse_time(s) or s), default="")
        zoneless += sum(1 for s in stamps.values() if parse_time(s) is not None and not has_zone(s))
        parts = part_arrivals(gradebook, submission.student_id, stamps)
        is_late = lateness(parts)
        late += bool(is_late)
        unknown += is_late is None
        extended += any(p.extension for p in parts)
        who = gradebook.students.get(submission.student_id, Identity())
        if when or who != Identity():
            identities[submission.student_id] = Identity(who.name, who.email, "", who.lms_user_id, is_late, when,
                                                         parts)
    if gradebook.due:
        summary += (f"; due dates from gradebook.db: {late} submitted late"
                    + (f"; {extended} with an extension, judged against the extended due date" if extended else "")
                    + (f", {unknown} not known (a folder with no due date or time)" if unknown else ""))
    if zoneless:
        summary += f"; {zoneless} timestamp.txt without a time zone, taken as UTC"
    return ClassImport("nbgrader course", found.submissions, summary, identities, found.skipped)


def timestamps(student: Path) -> dict[str, str]:
    """Each assignment folder's `timestamp.txt` (the key is the folder's name, "" for one at the top), as
    nbgrader wrote it."""
    found = {}
    for stamp in (student / "timestamp.txt", *sorted(student.glob("*/timestamp.txt"))):
        try:
            if stamp.is_file() and not stamp.is_symlink() and not stamp.parent.is_symlink():
                with open(stamp, encoding="utf-8", errors="replace") as handle:
                    text = safe_text(" ".join(handle.read(64).split()), 40)
                if text:
                    found["" if stamp.parent == student else stamp.parent.name] = text
        except OSError:
            continue
    return found
