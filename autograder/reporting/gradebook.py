"""gradebook.csv: one row per student, one column per question, then score, max_score and pending (quiz
points waiting for the instructor's review: neither earned nor lost yet, so not part of score).

When the class came from a platform that knows its students (a Canvas download, a Gradescope export), the
identity columns it filled (`name`, `email`, `sid`, `lms_user_id`) follow `student_id`, so the gradebook
joins to a roster; a class of plain folders has none, and score, max_score and pending stay last. Then, for
every class read from a platform's download, when the work arrived: `submitted_at` (Gradescope's and
nbgrader's time) and `late` ("yes"/"no": Canvas marks late uploads, nbgrader has due dates, `--due` gives
one), each blank where not known; where the platform dates each part apart (nbgrader with one assignment per
notebook), `submitted_at:<part>` and `late:<part>` for each part, `late` saying whether any part was; and
`arrival_note` where there is one (an extension and its due date, which of several uploads was graded)."""
from __future__ import annotations

import csv
import io
from collections.abc import Mapping

from ..results import StudentResult
from .escape import csv_cell

safe_cell = csv_cell  # every text cell: a student id or name such as `=HYPERLINK(...)` is shown as text


def question_columns(results: list[StudentResult]) -> list[str]:
    columns: list[str] = []
    for result in results:
        for question in result.question_scores():
            if question not in columns:
                columns.append(question)
    return columns


IDENTITY_COLUMNS = ("name", "email", "sid", "lms_user_id")
ARRIVAL_COLUMNS = ("submitted_at", "late")


def arrival_columns(arrivals: Mapping[str, dict]) -> list[str]:
    """Every platform download gets `submitted_at` and `late` (blank where not known); then each dated part's
    columns, and `arrival_note` where some student has one."""
    if not arrivals:
        return []
    columns = list(ARRIVAL_COLUMNS)
    for row in arrivals.values():
        columns += [c for c in row if c.startswith(("submitted_at:", "late:")) and c not in columns]
    if any(row.get("arrival_note") for row in arrivals.values()):
        columns.append("arrival_note")
    return columns


def gradebook_csv(results: list[StudentResult], identities: Mapping | None = None) -> str:
    """`identities`: student id -> an object whose columns() gives the IDENTITY_COLUMNS it knows."""
    columns = question_columns(results)
    known = {sid: identity.columns() for sid, identity in (identities or {}).items()}
    extra = [c for c in IDENTITY_COLUMNS if any(row.get(c) for row in known.values())]
    arrivals = {sid: identity.arrival() for sid, identity in (identities or {}).items()
                if hasattr(identity, "arrival")}
    extra_arrival = arrival_columns(arrivals)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["student_id", *extra, *map(safe_cell, columns), "score", "max_score", "pending",
                     *map(safe_cell, extra_arrival)])  # a part's name is a folder's: text, never a formula
    for result in results:
        per_question = result.question_scores()
        who = known.get(result.student_id, {})
        writer.writerow([safe_cell(result.student_id), *(safe_cell(who.get(c, "")) for c in extra),
                         *(f"{per_question.get(c, (0, 0))[0]:g}" for c in columns),
                         f"{result.score:g}", f"{result.max_score:g}",
                         f"{sum(q.pending for q in result.quizzes):g}",
                         *(safe_cell(arrivals.get(result.student_id, {}).get(c, "")) for c in extra_arrival)])
    return out.getvalue()
