"""What an nbgrader course's gradebook.db (nbgrader's SQLite database, the instructor's own file) says about
its students, read read-only: the `student` table's name, e-mail and `lms_user_id` (the Canvas user id when
the course was set up from Canvas), the `assignment` table's due dates, and which submissions carry an
extension (`submitted_assignment.extension`).

A submission is late when its `timestamp.txt` is after its assignment's due date; where an extension is
recorded, or the due date or the time cannot be read, whether it was late is not known (never guessed)."""
from __future__ import annotations

import sqlite3
from contextlib import closing
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from ...results import safe_text
from . import Identity


@dataclass
class Gradebook:
    students: dict[str, Identity] = field(default_factory=dict)
    due: dict[str, datetime] = field(default_factory=dict)             # assignment name -> due (UTC)
    extended: set[tuple[str, str]] = field(default_factory=set)        # (student id, assignment name)
    trouble: str = ""                                                  # why it was not read ("" if it was)


def _columns(connection, table: str) -> set[str]:
    return {row[1] for row in connection.execute(f"PRAGMA table_info({table})")}


def read_gradebook(database: Path) -> Gradebook:
    if not database.is_file() or database.is_symlink():
        return Gradebook()
    found = Gradebook()
    try:
        uri = database.resolve().as_uri() + "?mode=ro&immutable=1"  # never written, never locked
        with closing(sqlite3.connect(uri, uri=True, timeout=1)) as connection:
            columns = _columns(connection, "student")
            wanted = [c for c in ("first_name", "last_name", "email", "lms_user_id") if c in columns]
            if "id" not in columns or not wanted:
                return Gradebook(trouble="it has no student table")
            for row in connection.execute(f"SELECT id, {', '.join(wanted)} FROM student"):
                values = dict(zip(["id", *wanted], (safe_text(str(v or ""), 200).strip() for v in row)))
                name = " ".join(filter(None, (values.get("first_name"), values.get("last_name"))))
                found.students[values["id"]] = Identity(name=name, email=values.get("email", ""),
                                                        lms_user_id=values.get("lms_user_id", ""))
            if {"id", "name", "duedate"} <= _columns(connection, "assignment"):
                names = {}
                for ident, name, due in connection.execute("SELECT id, name, duedate FROM assignment"):
                    names[ident] = str(name)
                    when = parse_time(str(due)) if due else None
                    if when is not None:
                        found.due[str(name)] = when
                if {"assignment_id", "student_id", "extension"} <= _columns(connection, "submitted_assignment"):
                    for assignment, student in connection.execute(
                            "SELECT assignment_id, student_id FROM submitted_assignment WHERE extension IS NOT NULL"):
                        found.extended.add((str(student), names.get(assignment, "")))
    except sqlite3.Error as exc:
        return Gradebook(trouble=str(exc)[:80])
    return found


def parse_time(text: str) -> datetime | None:
    """nbgrader's times: "2026-11-30 10:00:00.000000 UTC" in timestamp.txt, naive UTC in the database, or
    ISO 8601 with an offset. None for anything else (a time zone given by name other than UTC)."""
    text = text.strip()
    if text.upper().endswith(" UTC"):
        text = text[:-4]
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        return None
    return when.replace(tzinfo=timezone.utc) if when.tzinfo is None else when.astimezone(timezone.utc)


def lateness(gradebook: Gradebook, student: str, stamps: dict[str, str]) -> bool | None:
    """Whether any of a student's submissions (assignment folder -> its timestamp.txt) came after its due
    date; None when that is not known for every one of them."""
    verdicts = []
    for assignment, stamp in stamps.items():
        due, when = gradebook.due.get(assignment), parse_time(stamp)
        if due is None or when is None or (student, assignment) in gradebook.extended:
            verdicts.append(None)
        else:
            verdicts.append(when > due)
    if any(verdicts):
        return True
    return False if verdicts and all(v is False for v in verdicts) else None
