"""Write every per-class output into OUT, each file atomically."""
from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from ..results import StudentResult, write_atomic
from ..grading.importers import Identity
from .canvas import canvas_csv
from .class_report import class_report_html
from .escape import file_stems
from .feedback import feedback_markdown
from .gradebook import gradebook_csv
from .gradescope import results_json
from .roster import RosterJoin, match_report_csv
from .summary import full_table


def write_outputs(out_dir: Path, results: list[StudentResult], roster: RosterJoin | None = None,
                  identities: Mapping[str, Identity] | None = None, skipped: list[str] = ()) -> None:
    """`identities` (what the platform said about each student) add columns to the gradebook; `skipped` lists
    entries of SUBMISSIONS that were no student's, for summary.txt and the report."""
    stems = file_stems(r.student_id for r in results)  # safe slugs, one per student, whatever the ids hold
    for result in results:
        stem = stems[result.student_id]
        write_atomic(out_dir / "results" / f"{stem}.json",
                     json.dumps(results_json(result), indent=1, ensure_ascii=False))
        write_atomic(out_dir / "feedback" / f"{stem}.md", feedback_markdown(result))
    write_atomic(out_dir / "gradebook.csv", gradebook_csv(results, identities))
    write_atomic(out_dir / "summary.txt", full_table(results, list(skipped)))
    write_atomic(out_dir / "canvas.csv", canvas_csv(results, roster=roster))
    if roster is not None:
        write_atomic(out_dir / "roster-match.csv", match_report_csv(roster))
    write_atomic(out_dir / "report.html", class_report_html(results, list(skipped)))
