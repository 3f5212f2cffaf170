"""canvas.csv: the class's scores in the layout Canvas's Gradebook "Import" accepts.

Layout (checked against Canvas's importer, `GradebookImporter` in instructure/canvas-lms
lib/gradebook_importer.rb, and the matching exporter):

    Student,ID,SIS User ID,SIS Login ID,Section,attention_scores code,single_head_attention code,quiz attention,...
    Points Possible,,,,,29,15,21,...
    ada,,,ada,,29,15,21,...

* The five student columns come first, in that order: the importer requires the header to start with
  "Student" and "ID", reads "SIS User ID" and "SIS Login ID" when they follow, and requires "Section" to
  close the student columns.
* Students are matched by Canvas ID, then SIS User ID, then SIS Login ID, then by name. The kit only knows
  the submission folder name, so it goes into `SIS Login ID` (the login Canvas matches on) and into
  `Student` (the name fallback); `ID`, `SIS User ID` and `Section` stay empty.
* One column per graded part, not one total: each assignment's code tests summed (`<assignment> code`)
  and each quiz (`quiz <quiz id>`). Canvas creates an assignment for a header it does not know and
  matches an existing one by exact title, or by its Canvas id when the header ends in " (<id>)": pass
  `canvas_ids` ({header: id}) to target existing assignments. No total column: Canvas computes its own,
  and a "Total" assignment would count every point twice.
* The "Points Possible" row right after the header carries each column's maximum; Canvas sets the
  assignments' points from it (it recognises the row by "Points Possible" in the first cell).
* A blank cell means "no change" to Canvas. A cell is left blank when the student has no result for that
  part, or when any of its tests hit a grader problem: a 0 the grader caused must not be uploaded; a quiz
  cell also stays blank while some of its answers wait for the instructor's review (pending points).
* A student id containing "Points Possible" would be taken for that row, so such an id goes only into
  `SIS Login ID`. Headers come from assignment and quiz ids: keep those free of Canvas's reserved column
  words ("Current Score", "Final Grade", "Override Score", ...), which the importer silently drops.

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

from ..results import GRADER_ERROR, StudentResult
from .gradebook import safe_cell
from .roster import RosterJoin

STUDENT_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
POINTS_POSSIBLE = "Points Possible"


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


def canvas_csv(results: list[StudentResult], canvas_ids: Mapping[str, int] | None = None,
               roster: RosterJoin | None = None) -> str:
    canvas_ids = {**(roster.assignment_ids if roster else {}), **(canvas_ids or {})}
    if roster is not None:
        results = [r for r in results if r.student_id in roster.matched]
    columns = canvas_columns(results)
    scores = [part_scores(r) for r in results]
    points = {c: max((s[c][1] for s in scores if c in s), default=0.0) for c in columns}
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")  # RFC 4180 line ends, as Canvas's own export
    writer.writerow(STUDENT_COLUMNS + [safe_cell(f"{c} ({canvas_ids[c]})" if c in canvas_ids else c) for c in columns])
    writer.writerow([POINTS_POSSIBLE, "", "", "", ""] + [number(points[c]) for c in columns])
    for result, parts in zip(results, scores):
        name = "" if POINTS_POSSIBLE.lower() in result.student_id.lower() else result.student_id
        cells = [number(parts[c][0]) if c in parts and parts[c][2] else "" for c in columns]
        if roster is not None:
            entry = roster.matched[result.student_id][0]
            writer.writerow([safe_cell(entry.name), entry.canvas_id, safe_cell(entry.sis_user_id),
                             safe_cell(entry.sis_login_id), safe_cell(entry.section)] + cells)
        else:
            writer.writerow([safe_cell(name), "", "", safe_cell(result.student_id), ""] + cells)
    return out.getvalue()
