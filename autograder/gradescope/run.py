"""Entry point of run_autograder: grade one Gradescope submission, always leave a results.json.

Gradescope puts the student's files flat in /autograder/submission; they are copied into a
one-student class and graded by the same engine (sandbox included) as `make grade`.
"""
from __future__ import annotations

import json
import shutil
import sys
import tempfile
import traceback
from pathlib import Path

from ..grading.results import write_atomic
from ..grading.runner import grade_class
from ..reporting.gradescope import results_json

STUDENT = "submission"


def grade_submission(submission: Path, results_path: Path) -> dict:
    with tempfile.TemporaryDirectory(prefix="attnkit-gs-") as scratch:
        folder = Path(scratch) / "class" / STUDENT
        folder.mkdir(parents=True)
        for path in submission.iterdir():  # links and folders are not copied: a submission is plain files
            if path.is_file() and not path.is_symlink():
                shutil.copyfile(path, folder / path.name)
        (result,) = grade_class(folder.parent, Path(scratch) / "out", workers=1)
    data = results_json(result)
    write_atomic(results_path, json.dumps(data, indent=1, ensure_ascii=False))
    return data


def main(submission: str, results_path: str) -> int:
    target = Path(results_path)
    try:
        grade_submission(Path(submission), target)
        return 0
    except Exception:  # noqa: BLE001 - a grader failure must still leave a readable result
        traceback.print_exc()
        write_atomic(target, json.dumps({
            "score": 0, "output": "The autograder hit an internal problem (not caused by your code). "
                                  "Your instructor has been notified; please do not resubmit for this.",
            "tests": [], "visibility": "visible"}))
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
