"""nbgrader's course root: collected work is in `submitted/<student id>/<assignment id>/<notebook>.ipynb`,
beside `source/`, `release/`, `autograded/`, `feedback/` and `gradebook.db`, none of which is a student.

Each `submitted/<student>` folder is read as a student folder: an assignment folder named like the kit's
assignment, or the single assignment folder nbgrader made, is found as in any student folder (a
`timestamp.txt` beside the notebooks is nbgrader's and is not mentioned). The latest of a student's
timestamps is kept as the submission time. Whether it was late needs the due date and any extension
nbgrader keeps for it, so `late` stays blank.

The course's gradebook.db (nbgrader's SQLite database, the instructor's own file) is read, read-only, for
what nbgrader knows of each student: the `student` table's name, e-mail and `lms_user_id` (the Canvas user
id when the course was set up from Canvas), so canvas.csv and the roster join can use them. A database that
cannot be read is said in the summary line and changes nothing else."""
from __future__ import annotations

import sqlite3
from contextlib import closing
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
    known, trouble = read_gradebook(folder / "gradebook.db")
    if known:
        summary += "; names, e-mails and LMS user ids read from gradebook.db"
    elif trouble:
        summary += f"; gradebook.db not read ({trouble})"
    identities = {}
    for submission in found.submissions:
        when = submitted_at(folder / SUBMITTED / submission.student_id)
        who = known.get(submission.student_id, Identity())
        if when or who != Identity():
            identities[submission.student_id] = Identity(who.name, who.email, "", who.lms_user_id,
                                                         submitted_at=when)
    return ClassImport("nbgrader course", found.submissions, summary, identities, found.skipped)


def read_gradebook(database: Path) -> tuple[dict[str, Identity], str]:
    """student id -> what nbgrader's `student` table says; or why the database was not read ("" when the
    course has none)."""
    if not database.is_file() or database.is_symlink():
        return {}, ""
    try:
        uri = database.resolve().as_uri() + "?mode=ro&immutable=1"  # never written, never locked
        with closing(sqlite3.connect(uri, uri=True, timeout=1)) as connection:
            columns = {row[1] for row in connection.execute("PRAGMA table_info(student)")}
            wanted = [c for c in ("first_name", "last_name", "email", "lms_user_id") if c in columns]
            if "id" not in columns or not wanted:
                return {}, "it has no student table"
            rows = connection.execute(f"SELECT id, {', '.join(wanted)} FROM student").fetchall()
    except sqlite3.Error as exc:
        return {}, str(exc)[:80]
    found = {}
    for row in rows:
        values = dict(zip(["id", *wanted], (safe_text(str(v or ""), 200).strip() for v in row)))
        name = " ".join(filter(None, (values.get("first_name"), values.get("last_name"))))
        found[values["id"]] = Identity(name=name, email=values.get("email", ""),
                                       lms_user_id=values.get("lms_user_id", ""))
    return found, ""


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
