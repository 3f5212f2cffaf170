"""Join the class's submission folders to a Canvas gradebook export, so canvas.csv carries Canvas's ids.

Canvas's gradebook export (Grades > Export > CSV) starts with the columns Student ("Last, First"), ID,
SIS User ID, SIS Login ID, [Integration ID,] Section, then one column per assignment titled "Title (id)",
a "Points Possible" row (and, in newer exports, a "Manual Posting" row). A submission folder is matched, in
this order, to the SIS Login ID, the SIS User ID, an e-mail (an Email column, or a login that is an
address: the whole address or its local part), and finally the name, in any order of its words ("lee
barbara", "Barbara_Lee", "Lee, Barbara"). A match must be unique; everyone else is listed, never guessed. A student read from a platform's download
is first matched by what the download says: the Canvas user id (the export's ID), the SID (as the SIS User
ID, else as the Canvas user id), the e-mail.
Canvas's "Test Student" (the student view's account) is no student: it is left out of the roster.

An export without a column the class's matching needs (SIS Login ID for folders named after logins, SIS
User ID for SIDs...) is refused before grading (`missing_columns`): otherwise most of the class would drop
out of canvas.csv in silence.
"""
from __future__ import annotations

import csv
import io
import re
import unicodedata
from dataclasses import dataclass, field

from .escape import csv_cell
from .names import is_test_student, quoted

POINTS_POSSIBLE = "points possible"
_HEADER_ID = re.compile(r"^(?P<title>.*\S)\s*\((?P<id>\d+)\)$")
_NOT_STUDENTS = ("points possible", "manual posting", "muted")


@dataclass(frozen=True)
class RosterEntry:
    name: str
    canvas_id: str
    sis_user_id: str = ""
    sis_login_id: str = ""
    section: str = ""
    email: str = ""


@dataclass
class RosterJoin:
    matched: dict[str, tuple[RosterEntry, str]] = field(default_factory=dict)  # folder -> (entry, matched by)
    unmatched: list[str] = field(default_factory=list)                         # folders not in the roster
    ambiguous: dict[str, list[str]] = field(default_factory=dict)              # folder -> candidate names
    without_submission: list[RosterEntry] = field(default_factory=list)
    assignment_ids: dict[str, int] = field(default_factory=dict)               # column title -> Canvas id


def _key(text: str) -> str:
    text = unicodedata.normalize("NFKD", text)
    return "".join(c for c in text if not unicodedata.combining(c)).casefold().strip()


def name_key(text: str) -> tuple[str, ...]:
    return tuple(sorted(t for t in re.split(r"[\s_.,\-]+", _key(text)) if t))


def read_canvas_export(text: str) -> tuple[list[RosterEntry], dict[str, int]]:
    """Students and assignment ids from a Canvas gradebook export."""
    rows = list(csv.reader(io.StringIO(text.lstrip("\ufeff"))))
    if not rows or [c.strip() for c in rows[0][:2]] != ["Student", "ID"]:
        raise ValueError("not a Canvas gradebook export: the first columns must be Student, ID")
    header = [c.strip() for c in rows[0]]
    column = {name.casefold(): index for index, name in enumerate(header)}
    email_column = next((column[c] for c in ("email", "e-mail", "email address") if c in column), None)

    def cell(row: list[str], name: str) -> str:
        index = column.get(name)
        return row[index].strip() if index is not None and index < len(row) else ""

    entries = []
    for row in rows[1:]:
        name = row[0].strip() if row else ""
        if not name or name.casefold().startswith(_NOT_STUDENTS) or not cell(row, "id") or is_test_student(name):
            continue
        email = row[email_column].strip() if email_column is not None and email_column < len(row) else ""
        entries.append(RosterEntry(name, cell(row, "id"), cell(row, "sis user id"), cell(row, "sis login id"),
                                   cell(row, "section"), email))
    assignments = {m["title"]: int(m["id"]) for m in map(_HEADER_ID.match, header) if m}
    return entries, assignments


def export_columns(text: str) -> set[str]:
    """The columns of a Canvas gradebook export, case-folded."""
    rows = csv.reader(io.StringIO(text.lstrip("\ufeff")))
    return {c.strip().casefold() for c in next(rows, [])}


def missing_columns(columns: set[str], folders: list[str], identities: dict | None = None) -> str | None:
    """The sentence refusing an export that lacks what matching this class needs, or None. Each student
    needs one column its keys can be found in: a Canvas user id the ID column; a SID or an e-mail the SIS
    User ID, SIS Login ID or Email column; a bare folder name the SIS Login ID (folders are named after
    logins, or after names, which alone match too few)."""
    identities = identities or {}
    wanted: dict[str, int] = {}
    for folder in folders:
        who = identities.get(folder)
        if who is not None and getattr(who, "lms_user_id", ""):
            continue  # the ID column, which every export has
        usable = (["sis user id"] if getattr(who, "sid", "") else []) \
            + (["sis login id", "email"] if getattr(who, "email", "") else [])
        if not usable:
            usable = ["sis login id"]
        if not any(c in columns for c in usable):
            label = " or ".join(_TITLES[c] for c in usable)
            wanted[label] = wanted.get(label, 0) + 1
    if not wanted:
        return None
    label, count = max(wanted.items(), key=lambda pair: pair[1])
    return (f"the roster has no {label} column, which matching {count} of the {len(folders)} submission(s) "
            "needs: export the gradebook with its SIS columns (a role that may see SIS data) or grade "
            "without --roster.")


_TITLES = {"sis user id": "SIS User ID", "sis login id": "SIS Login ID", "email": "Email"}


def join_roster(folders: list[str], entries: list[RosterEntry], identities: dict | None = None) -> RosterJoin:
    """`identities` (student id -> what the download said: lms_user_id, sid, email) are tried first: a Canvas
    download carries each student's Canvas ID, a Gradescope export the SID and e-mail."""
    identities = identities or {}
    known = [("Canvas ID", "lms_user_id", lambda e: [e.canvas_id]), ("SIS User ID", "sid", lambda e: [e.sis_user_id]),
             ("Canvas ID (the SID)", "sid", lambda e: [e.canvas_id]),  # a Gradescope course set up from Canvas
             ("email", "email", lambda e: [_key(a) for a in (e.email, e.sis_login_id) if "@" in a])]
    rules = [
        ("SIS Login ID", lambda e: [_key(e.sis_login_id)]),
        ("SIS User ID", lambda e: [_key(e.sis_user_id)]),
        ("email", lambda e: [_key(a) for a in (e.email, e.sis_login_id) if "@" in a]
         + [_key(a).split("@")[0] for a in (e.email, e.sis_login_id) if "@" in a]),
        ("name", lambda e: [" ".join(name_key(e.name))]),
    ]
    join = RosterJoin()
    taken: set[str] = set()
    for folder in folders:
        identity = identities.get(folder)
        for rule, attribute, keys in known if identity is not None else ():
            wanted = _key(getattr(identity, attribute, "") or "")
            candidates = [e for e in entries if wanted and wanted in [_key(k) for k in keys(e) if k]]
            if len(candidates) == 1:
                join.matched[folder] = (candidates[0], rule)
                taken.add(candidates[0].canvas_id)
                break
        if folder in join.matched:
            continue
        for rule, keys in rules:
            wanted = " ".join(name_key(folder)) if rule == "name" else _key(folder)
            candidates = [e for e in entries if wanted and wanted in [k for k in keys(e) if k]]
            if len(candidates) == 1:
                join.matched[folder] = (candidates[0], rule)
                taken.add(candidates[0].canvas_id)
                break
            if len(candidates) > 1:
                join.ambiguous[folder] = [e.name for e in candidates]
                break
        else:
            join.unmatched.append(folder)
    join.without_submission = [e for e in entries if e.canvas_id not in taken]
    return join


def match_report_csv(join: RosterJoin) -> str:
    """roster-match.csv: how every folder was matched, or why not."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    row = lambda cells: writer.writerow([csv_cell(c) for c in cells])  # noqa: E731 - names are students' text
    row(["folder", "matched by", "Canvas student", "Canvas ID", "SIS Login ID"])
    for folder, (entry, rule) in join.matched.items():
        row([folder, rule, entry.name, entry.canvas_id, entry.sis_login_id])
    for folder, names in join.ambiguous.items():
        row([folder, "AMBIGUOUS: " + quoted(names), "", "", ""])
    for folder in join.unmatched:
        row([folder, "NOT IN ROSTER", "", "", ""])
    for entry in join.without_submission:
        row(["", "NO SUBMISSION", entry.name, entry.canvas_id, entry.sis_login_id])
    return out.getvalue()
