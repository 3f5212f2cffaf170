"""Entry point of run_autograder: grade one Gradescope submission, always leave a results.json.

Gradescope puts the student's upload in /autograder/submission. Its regular files and folders (no
links, bounded in depth, count and size) are copied into a one-student class and graded by the same
engine and sandbox as `make grade`, so files handed in one folder down are found the same way. The
isolation in force is printed first: Gradescope shows run_autograder's output to instructors only.
Set ATTNKIT_ALLOW_WEAK_ISOLATION=1 to grade where neither namespaces nor Landlock work. Review decisions
bundled into the zip (review.yaml at its top, `make gradescope OUT=...`) are applied as `make grade` applies
OUT/review.yaml: "Regrade all submissions" with that zip brings them into every score.
"""
from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import traceback
from pathlib import Path

from ..paths import BUNDLED_REVIEW
from ..quiz.review import REVIEW_FILE
from ..reporting.escape import one_line, terminal
from ..results import write_atomic
from ..grading.runner import grade_class
from ..reporting.gradescope import results_json
from ..sandbox import SandboxUnavailable
from ..sandbox.isolation import probe_bwrap_early

STUDENT = "submission"
MAX_DEPTH, MAX_ENTRIES, MAX_BYTES = 4, 2000, 200 << 20  # far beyond a handout folder


def copy_submission(source: Path, target: Path) -> list[str]:
    """Copy regular files and folders (never links) down to MAX_DEPTH; return what was left out."""
    left_out, count, size = [], 0, 0
    target.mkdir(parents=True)
    stack = [(source, target, 0)]
    while stack:
        here, there, depth = stack.pop()
        for entry in sorted(os.scandir(here), key=lambda e: e.name):
            name = os.path.relpath(entry.path, source)
            if entry.is_symlink():
                left_out.append(f"{name} (a link)")
            elif entry.is_dir(follow_symlinks=False):
                if depth + 1 >= MAX_DEPTH:
                    left_out.append(f"{name}/ (too deep)")
                else:
                    (there / entry.name).mkdir()
                    stack.append((Path(entry.path), there / entry.name, depth + 1))
            elif entry.is_file(follow_symlinks=False):
                count += 1
                size += entry.stat(follow_symlinks=False).st_size
                if count > MAX_ENTRIES or size > MAX_BYTES:
                    left_out.append(f"{name} (over {MAX_ENTRIES} files or {MAX_BYTES >> 20} MiB in all)")
                else:
                    shutil.copyfile(entry.path, there / entry.name, follow_symlinks=False)
    return left_out


def grade_submission(submission: Path, results_path: Path) -> dict:
    allow_weak = os.environ.get("ATTNKIT_ALLOW_WEAK_ISOLATION") == "1"
    probe_bwrap_early()  # bubblewrap's self-test runs while the submission is copied and read
    with tempfile.TemporaryDirectory(prefix="attnkit-gs-") as scratch:
        folder = Path(scratch) / "class" / STUDENT
        left_out = copy_submission(submission, folder)
        for line in left_out:
            print(f"not copied: {one_line(line)}")
        out = Path(scratch) / "out"
        if BUNDLED_REVIEW.is_file():  # decisions made on `make review`, bundled by `make gradescope OUT=...`
            out.mkdir()
            shutil.copyfile(BUNDLED_REVIEW, out / REVIEW_FILE)
        say = lambda text: print(terminal(text))  # noqa: E731 - Gradescope's log is read as plain text
        (result,) = grade_class(folder.parent, out, workers=1, allow_weak=allow_weak, announce=say, warn=say)
    data = results_json(result)
    write_atomic(results_path, json.dumps(data, indent=1, ensure_ascii=False))
    return data


def main(submission: str, results_path: str) -> int:
    target = Path(results_path)
    try:
        grade_submission(Path(submission), target)
        return 0
    except SandboxUnavailable as exc:
        print(f"REFUSED: {exc}")
        message = ("The autograder could not isolate your code on this machine, so it did not run it. "
                   "Your instructor has been notified; please do not resubmit for this.")
    except Exception:  # noqa: BLE001 - a grader failure must still leave a readable result
        traceback.print_exc()
        message = ("The autograder hit an internal problem (not caused by your code). "
                   "Your instructor has been notified; please do not resubmit for this.")
    write_atomic(target, json.dumps({"score": 0, "output": message, "tests": [], "visibility": "visible",
                                     "stdout_visibility": "hidden"}))
    return 1


if __name__ == "__main__":
    from ..process_exit import exit_now

    exit_now(main(sys.argv[1], sys.argv[2]))  # results.json is written and synced: skip torch's teardown
