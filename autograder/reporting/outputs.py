"""Write every per-class output into OUT, each file atomically."""
from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from ..results import StudentResult, write_atomic
from ..grading.importers import Identity
from .canvas import canvas_csv, canvas_notes, roster_notes
from .class_report import class_report_html
from .escape import file_stems
from .feedback import feedback_markdown
from .gradebook import gradebook_csv
from .gradescope import results_json
from .moodle import moodle_csv
from .provisional import arrival
from .roster import RosterJoin, match_report_csv
from .summary import full_table


def write_outputs(out_dir: Path, results: list[StudentResult], roster: RosterJoin | None = None,
                  identities: Mapping[str, Identity] | None = None, skipped: list[str] = ()) -> None:
    """`identities` (what the platform said about each student) add columns to the gradebook; `skipped` lists
    entries of SUBMISSIONS that were no student's, for summary.txt and the report."""
    stems = file_stems(r.student_id for r in results)  # safe slugs, one per student, whatever the ids hold
    for result in results:
        stem = stems[result.student_id]
        when = arrival(identities, result.student_id)
        write_atomic(out_dir / "results" / f"{stem}.json",
                     json.dumps(results_json(result, arrival=when), indent=1, ensure_ascii=False))
        write_atomic(out_dir / "feedback" / f"{stem}.md", feedback_markdown(result, when))
    write_atomic(out_dir / "gradebook.csv", gradebook_csv(results, identities))
    moodle, moodle_notes = moodle_csv(results, identities)
    write_atomic(out_dir / "summary.txt", full_table(results, list(skipped), identities,
                                                     canvas_notes(results, roster, identities) + roster_notes(roster)
                                                     + moodle_notes, out_dir))
    if moodle is not None:
        write_atomic(out_dir / "moodle.csv", moodle)
    else:  # an earlier run's file would be taken for this one's
        (out_dir / "moodle.csv").unlink(missing_ok=True)
    write_atomic(out_dir / "canvas.csv", canvas_csv(results, roster=roster, identities=identities))
    if roster is not None:
        write_atomic(out_dir / "roster-match.csv", match_report_csv(roster))
    write_atomic(out_dir / "report.html", class_report_html(results, list(skipped), identities, out_dir))
