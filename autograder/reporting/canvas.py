"""canvas.csv: the class's scores in the layout Canvas's Gradebook "Import" accepts.

Layout (checked against Canvas's importer, `GradebookImporter` in instructure/canvas-lms
lib/gradebook_importer.rb, and the matching exporter):

    Student,ID,SIS User ID,SIS Login ID,Section,attention_scores code,single_head_attention code,quiz attention,...
    Points Possible,,,,,29,15,21,...
    lovelaceada,340934,,,,29,15,21,...       (a Canvas download: its user id)
    Ada Lovelace,,S0001,,,29,15,21,...       (a Gradescope export: its SID)

* The five student columns come first, in that order: the importer requires the header to start with
  "Student" and "ID", reads "SIS User ID" and "SIS Login ID" when they follow, and requires "Section" to
  close the student columns.
* Canvas's importer matches a row by `ID` (the Canvas user id), then `SIS User ID`, then `SIS Login ID`,
  then by the exact name or sortable name in `Student`. So a cell holds only what is known to be of its
  kind: `ID` the Canvas user id (read from a Canvas download's file names, or from the roster), `SIS User
  ID` the institution's student id (a Gradescope export's SID, or the roster's), `SIS Login ID` only the
  roster's login. A folder name is never written as a login (it could be someone else's); `Student` holds
  the name the platform gave, else the folder name. A row with no id at all is matched by name only:
  `canvas_notes` says how many, and `--roster` joins them.
* Canvas's own "Test Student" (the student view's account) is left out: its scores are no one's.
* One column per graded part, not one total: each assignment's code tests summed (`<assignment> code`)
  and each quiz (`quiz <quiz id>`). Canvas creates an assignment for a header it does not know and
  matches an existing one by exact title, or by its Canvas id when the header ends in " (<id>)": pass
  `canvas_ids` ({header: id}) to target existing assignments. No total column: Canvas computes its own,
  and a "Total" assignment would count every point twice.
* The "Points Possible" row right after the header carries each column's maximum; Canvas sets the
  assignments' points from it (its importer recognises the row by "Points Possible" anywhere in the first
  cell). Written as Canvas's own export writes it (`lib/gradebook_exporter.rb`): "    Points Possible"
  (four spaces first), the student columns empty, each maximum with two decimals ("29.00").
* A blank cell means "no change" to Canvas. A cell is left blank when the student has no result for that
  part, or when any of its tests hit a grader problem: a 0 the grader caused must not be uploaded; a quiz
  cell also stays blank while some of its answers wait for the instructor's review (pending points), and
  `canvas_notes` says so where the teacher reads (terminal, summary.txt).
* A name containing "Points Possible" would be taken for that row, so the `Student` cell is left blank.
  Headers come from assignment and quiz ids: keep those free of Canvas's reserved column words ("Current
  Score", "Final Grade", "Override Score", ...), which the importer silently drops.

With a roster (`attnkit grade --roster <Canvas gradebook export>`, see roster.py) the student columns come from
Canvas itself (its name, ID, SIS ids and section), only students found in the roster are written, and an
assignment column takes the Canvas id of the same title in the export.

Written with the csv module (RFC 4180 quoting, so commas, quotes and newlines in ids round-trip), UTF-8,
without a byte-order mark. A text cell starting with = + - @ (or a tab or carriage return) gets a leading
apostrophe, so that a spreadsheet does not run a student's folder name as a formula.
"""
from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from dataclasses import dataclass

from ..results import GRADER_ERROR, StudentResult
from .gradebook import safe_cell
from .names import is_test_student, quoted
from .roster import RosterJoin

STUDENT_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
POINTS_POSSIBLE = "Points Possible"
POINTS_POSSIBLE_CELL = "    Points Possible"  # as Canvas's exporter writes it (lib/gradebook_exporter.rb)


def code_column(assignment: str) -> str:
    return f"{assignment} code"


def quiz_column(quiz_id: str) -> str:
    return f"quiz {quiz_id}"


def number(value: float) -> str:
    """Plain decimal, never exponent notation, at most 4 decimal places (Canvas shows 2)."""
    text = f"{round(value, 4) + 0.0:.4f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


def part_scores(result: StudentResult) -> dict[str, tuple[float, float, bool]]:
    """header -> (score, max, trustworthy) for one student."""
    parts: dict[str, list] = {}
    for test in result.tests:
        entry = parts.setdefault(code_column(test.assignment), [0.0, 0.0, True])
        entry[0] += test.score
        entry[1] += test.max_score
        entry[2] = entry[2] and test.status != GRADER_ERROR
    for quiz in result.quizzes:  # a quiz with answers waiting for review is not final: leave its cell blank
        parts[quiz_column(quiz.quiz_id)] = [quiz.score, quiz.max_score, not quiz.pending]
    return {header: (score, top, ok) for header, (score, top, ok) in parts.items()}


def canvas_columns(results: list[StudentResult]) -> list[str]:
    code: list[str] = []
    quizzes: list[str] = []
    for result in results:
        for test in result.tests:
            if code_column(test.assignment) not in code:
                code.append(code_column(test.assignment))
        for quiz in result.quizzes:
            if quiz_column(quiz.quiz_id) not in quizzes:
                quizzes.append(quiz_column(quiz.quiz_id))
    return code + quizzes


@dataclass(frozen=True)
class CanvasRow:
    student: str
    canvas_id: str = ""
    sis_user_id: str = ""
    sis_login_id: str = ""
    section: str = ""


def canvas_rows(results: list[StudentResult], roster: RosterJoin | None = None,
                identities: Mapping | None = None) -> list[tuple[StudentResult, CanvasRow]]:
    """Who goes into canvas.csv, and under which ids: with a roster, the students it matched, with
    Canvas's own columns; without one, what the download knew (see the module docstring)."""
    rows = []
    for result in results:
        if roster is not None:
            if result.student_id not in roster.matched:
                continue
            entry = roster.matched[result.student_id][0]
            row = CanvasRow(entry.name, entry.canvas_id, entry.sis_user_id, entry.sis_login_id, entry.section)
        else:
            who = (identities or {}).get(result.student_id)
            row = CanvasRow(getattr(who, "name", "") or result.student_id, getattr(who, "lms_user_id", ""),
                            getattr(who, "sid", ""))
        if not is_test_student(row.student):
            rows.append((result, row))
    return rows


def canvas_csv(results: list[StudentResult], canvas_ids: Mapping[str, int] | None = None,
               roster: RosterJoin | None = None, identities: Mapping | None = None) -> str:
    """`identities`: student id -> what the platform said (importers.Identity), used without a roster."""
    canvas_ids = {**(roster.assignment_ids if roster else {}), **(canvas_ids or {})}
    rows = canvas_rows(results, roster, identities)
    columns = canvas_columns([result for result, _ in rows])
    scores = [part_scores(result) for result, _ in rows]
    points = {c: max((s[c][1] for s in scores if c in s), default=0.0) for c in columns}
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")  # RFC 4180 line ends, as Canvas's own export
    writer.writerow(STUDENT_COLUMNS + [safe_cell(f"{c} ({canvas_ids[c]})" if c in canvas_ids else c) for c in columns])
    writer.writerow([POINTS_POSSIBLE_CELL, "", "", "", ""] + [f"{points[c]:.2f}" for c in columns])
    for (_, row), parts in zip(rows, scores):
        name = "" if POINTS_POSSIBLE.lower() in row.student.lower() else row.student
        cells = [number(parts[c][0]) if c in parts and parts[c][2] else "" for c in columns]
        writer.writerow([safe_cell(name), safe_cell(row.canvas_id), safe_cell(row.sis_user_id), safe_cell(row.sis_login_id),
                         safe_cell(row.section)] + cells)
    return out.getvalue()


def canvas_notes(results: list[StudentResult], roster: RosterJoin | None = None,
                 identities: Mapping | None = None) -> list[str]:
    """What a teacher must know before uploading canvas.csv, one line each (terminal and summary.txt)."""
    rows = canvas_rows(results, roster, identities)
    notes = []
    waiting = [result.student_id for result, _ in rows if any(q.pending for q in result.quizzes)]
    if waiting:
        cells = sum(1 for result, _ in rows for q in result.quizzes if q.pending)
        notes.append(f"canvas.csv: {cells} quiz cell(s) of {len(waiting)} student(s) left blank while answers wait "
                     "for review (Canvas keeps its value); upload again after the review")
    nameless = [row.student for _, row in rows if not (row.canvas_id or row.sis_user_id or row.sis_login_id)]
    if nameless:
        notes.append(f"canvas.csv: {len(nameless)} student(s) without a Canvas or SIS id, matched by exact name only; "
                     "--roster <gradebook export> joins them")
    left_out = len(results) - len(rows) - (len([r for r in results if r.student_id not in roster.matched])
                                           if roster is not None else 0)
    if left_out:
        notes.append("canvas.csv: Canvas's Test Student left out")
    return notes


def roster_notes(roster: RosterJoin | None) -> list[str]:
    """Who the upload will not reach, for summary.txt (the terminal said it as the roster was read)."""
    if roster is None:
        return []
    notes = []
    unmatched = [f for f in roster.unmatched if not is_test_student(f)]
    if unmatched:
        notes.append(f"canvas.csv: left out, no student of the roster matches {quoted(unmatched)} "
                     "(roster-match.csv says why)")
    if roster.ambiguous:
        notes.append(f"canvas.csv: left out, each matches two or more students of the roster: "
                     f"{quoted(roster.ambiguous)}")
    if roster.without_submission:
        notes.append(f"roster: {len(roster.without_submission)} student(s) with no submission, not in canvas.csv "
                     f"(Canvas keeps their cells): {quoted([e.name for e in roster.without_submission], 20)}")
    return notes
