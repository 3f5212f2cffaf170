"""gradebook.csv: one row per student, one column per question, then score, max_score and pending (quiz
points waiting for the instructor's review: neither earned nor lost yet, so not part of score)."""
from __future__ import annotations

import csv
import io

from ..results import StudentResult

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(text: str) -> str:
    """A text cell that a spreadsheet shows as text instead of running it as a formula: a student id
    (a folder name) such as `=HYPERLINK(...)` gets a leading apostrophe."""
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def question_columns(results: list[StudentResult]) -> list[str]:
    columns: list[str] = []
    for result in results:
        for question in result.question_scores():
            if question not in columns:
                columns.append(question)
    return columns


def gradebook_csv(results: list[StudentResult]) -> str:
    columns = question_columns(results)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["student_id", *map(safe_cell, columns), "score", "max_score", "pending"])
    for result in results:
        per_question = result.question_scores()
        writer.writerow([safe_cell(result.student_id), *(f"{per_question.get(c, (0, 0))[0]:g}" for c in columns),
                         f"{result.score:g}", f"{result.max_score:g}",
                         f"{sum(q.pending for q in result.quizzes):g}"])
    return out.getvalue()
