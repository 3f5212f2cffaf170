"""gradebook.csv: one row per student, one column per question, then score, max_score and pending (quiz
points waiting for the instructor's review: neither earned nor lost yet, so not part of score)."""
from __future__ import annotations

import csv
import io

from ..grading.results import StudentResult


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
    writer.writerow(["student_id", *columns, "score", "max_score", "pending"])
    for result in results:
        per_question = result.question_scores()
        writer.writerow([result.student_id, *(f"{per_question.get(c, (0, 0))[0]:g}" for c in columns),
                         f"{result.score:g}", f"{result.max_score:g}",
                         f"{sum(q.pending for q in result.quizzes):g}"])
    return out.getvalue()
