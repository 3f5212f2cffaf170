"""moodle.csv: the scores in a shape Moodle's grade import (Grades > Import > CSV file) takes, written when the
download gave students' e-mail addresses (a Gradescope export, an nbgrader gradebook).

How Moodle reads it (gradeimport_csv, grade/import/csv/classes/load_data.php): the teacher maps one column
to the user field that identifies a row ("Email address" for `email`) and each score column to a grade item.
Two of its rules shape this file:
* a row whose user cannot be found stops the whole import, so only students with an e-mail are written (the
  others are named in the notes);
* an empty cell is imported as "no grade" and clears the grade already there, so a column is written only
  when every one of its cells is final: a quiz with answers waiting for review, or a part that hit a grader
  problem, is left out (and named) until the next run.
Columns are titled like canvas.csv's (`attention_scores code`, `quiz attention`), one per graded part.
"""
from __future__ import annotations

import csv
import io
from collections.abc import Mapping

from ..results import StudentResult
from .canvas import canvas_columns, number, part_scores
from .gradebook import safe_cell
from .names import quoted


def moodle_csv(results: list[StudentResult], identities: Mapping | None = None) -> tuple[str | None, list[str]]:
    """(the file's text, or None when no student has an e-mail; what the teacher must know, one line each)."""
    identities = identities or {}
    rows = [(result, getattr(identities.get(result.student_id), "email", "")) for result in results]
    written = [(result, email) for result, email in rows if email]
    if not written:
        return None, []
    notes = []
    without = [result.student_id for result, email in rows if not email]
    if without:
        notes.append(f"moodle.csv: {len(without)} student(s) without an e-mail left out (Moodle stops the whole "
                     f"import at a row it cannot match): {quoted(without, limit=5)}")
    scores = [part_scores(result) for result, _ in written]
    columns = canvas_columns([result for result, _ in written])
    final = [c for c in columns if all(c in parts and parts[c][2] for parts in scores)]
    held = [c for c in columns if c not in final]
    if held:
        notes.append(f"moodle.csv: {quoted(held)} left out until every cell is final (answers waiting for review, "
                     "a grader problem or a missing part; an empty cell would clear Moodle's grade)")
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["email", *map(safe_cell, final)])
    for (_, email), parts in zip(written, scores):
        writer.writerow([safe_cell(email), *(number(parts[c][0]) for c in final)])
    return out.getvalue(), notes
