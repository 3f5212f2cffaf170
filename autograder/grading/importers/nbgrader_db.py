"""What an nbgrader course's gradebook.db (nbgrader's SQLite database, the instructor's own file) says about
its students, read read-only: the `student` table's name, e-mail and `lms_user_id` (the Canvas user id when
the course was set up from Canvas), the `assignment` table's due dates, and which submissions carry an
extension (`submitted_assignment.extension`: an Interval, which SQLAlchemy keeps in SQLite as the time that
long after 1970-01-01).

As nbgrader itself reckons it, a submission is late when its `timestamp.txt` is after its assignment's due
date plus the student's extension; where the due date, the extension or the time cannot be read, whether it
was late is not known (never guessed). Each assignment is judged apart (a course with one nbgrader
assignment per notebook dates each part)."""
from __future__ import annotations

import sqlite3
from contextlib import closing
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

from ...results import safe_text
from . import Identity, PartArrival
from .times import parse_time, shown_time

EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


@dataclass
class Gradebook:
    students: dict[str, Identity] = field(default_factory=dict)
    due: dict[str, datetime] = field(default_factory=dict)             # assignment name -> due (UTC)
    extended: dict[tuple[str, str], timedelta | None] = field(default_factory=dict)  # (student, assignment)
    # -> the extension (None: recorded but unreadable)
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
                    for assignment, student, length in connection.execute(
                            "SELECT assignment_id, student_id, extension FROM submitted_assignment "
                            "WHERE extension IS NOT NULL"):
                        until = parse_time(str(length))
                        found.extended[str(student), names.get(assignment, "")] = (
                            until - EPOCH if until is not None and until >= EPOCH else None)
    except sqlite3.Error as exc:
        return Gradebook(trouble=str(exc)[:80])
    return found


def duration(length: timedelta) -> str:
    """"1 day", "2 days 3 hours", "90 minutes"."""
    days, seconds = length.days, length.seconds
    hours, minutes = divmod(seconds // 60, 60)
    parts = [f"{days} day{'s' * (days != 1)}" if days else "", f"{hours} hour{'s' * (hours != 1)}" if hours else "",
             f"{minutes} minute{'s' * (minutes != 1)}" if minutes else ""]
    return " ".join(filter(None, parts)) or "0 minutes"


def part_arrivals(gradebook: Gradebook, student: str, stamps: dict[str, str]) -> tuple[PartArrival, ...]:
    """Each of a student's submissions (assignment folder -> its timestamp.txt), judged against its own due
    date plus the student's extension for it."""
    found = []
    for assignment, stamp in stamps.items():
        due, when = gradebook.due.get(assignment), parse_time(stamp)
        extension = gradebook.extended.get((student, assignment), timedelta(0))
        granted = "" if not extension else duration(extension)
        if extension is None:   # recorded, but not a length we can read
            found.append(PartArrival(assignment, stamp, None, "", "of unreadable length"))
        elif due is None or when is None:
            found.append(PartArrival(assignment, stamp, None, "", granted))
        else:
            found.append(PartArrival(assignment, stamp, when > due + extension, shown_time(due + extension), granted))
    return tuple(found)


def lateness(parts: tuple[PartArrival, ...]) -> bool | None:
    """Late when any part was; on time when every part is known to be; else not known."""
    verdicts = [p.late for p in parts]
    if any(verdicts):
        return True
    return False if verdicts and all(v is False for v in verdicts) else None
