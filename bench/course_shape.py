"""`make course-shape`: the engine's own tests on a course of another shape.

Copies the kit (without its virtualenv, git data and outputs) into a temporary folder, adds the third
assignment and its quiz of tests/new_course/ (source/temperature.py, quizzes/temperature.yaml) as an
instructor would, regenerates with `attnkit assignments`, then runs the test modules about the engine
(ENGINE_MODULES) in that copy, against the copy's own code. A test that fails there assumes this course's
parts; what is particular to this course belongs in tests/test_course.py (docs/authoring.md).

Tests about the attention graders themselves (their probes, mistakes and diagnoses) are not run: they test that
content, and name it. tests/test_engine_tests_course_free.py keeps ENGINE_MODULES free of the course's names.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NEW_COURSE = ROOT / "tests" / "new_course"
ADDED = {"source/temperature.py": "temperature.py", "quizzes/temperature.yaml": "temperature.yaml"}

# The engine: reading submissions (every platform's layout, zips, times), grading a class, the gradebook,
# canvas.csv / Moodle / Gradescope outputs and the Gradescope zip as deployed, parts, the class report and every
# renderer's escaping, the handout and its release, course discovery.
ENGINE_MODULES = (
    "tests/test_course_parts.py",
    "tests/test_submissions.py",
    "tests/test_grading.py",
    "tests/test_reports.py",
    "tests/test_platform_outputs.py",
    "tests/test_gradescope_visibility.py",
    "tests/test_gradescope_words.py",
    "tests/test_release.py",
    "tests/test_handout.py",
    "tests/test_importers.py",
    "tests/test_roster.py",
    "tests/test_quiz_files.py",
    "tests/test_cheap_nothing.py",
    "tests/test_test_student.py",
    "tests/test_grade_command.py",
    "tests/test_truthful_words.py",
    "tests/test_generated.py",
    "tests/test_gradescope.py",
    "tests/test_class_of_30.py",
    "tests/test_escaping.py",
    "tests/test_escaping_arrival.py",
    "tests/test_times.py",
    "tests/test_zip_names.py",
    "tests/test_fault_wall.py",
)
LEFT_BEHIND = (".venv", ".git", "out", "dist", "build", "__pycache__", "*.egg-info", ".pytest_cache", ".hypothesis")


def copy_kit(into: Path) -> Path:
    root = into / "kit"
    shutil.copytree(ROOT, root, ignore=shutil.ignore_patterns(*LEFT_BEHIND), symlinks=True)
    for target, name in ADDED.items():
        shutil.copy2(NEW_COURSE / name, root / target)
    return root


def environment(root: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(root)  # the copy's engine before the editable install of this checkout
    env.pop("PYTEST_XDIST_WORKER", None)
    return env


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("modules", nargs="*", help="test modules to run (default: ENGINE_MODULES)")
    parser.add_argument("--keep", action="store_true", help="keep the copy and print where it is")
    parser.add_argument("--workers", default="0", help="pytest-xdist workers in the copy (default 0: none)")
    options = parser.parse_args()
    modules = options.modules or list(ENGINE_MODULES)
    base = Path(tempfile.mkdtemp(prefix="attnkit-course-shape-"))
    try:
        root = copy_kit(base)
        env = environment(root)
        started = time.monotonic()
        made = subprocess.run([sys.executable, "-m", "autograder.cli", "assignments"], cwd=root, env=env,
                              capture_output=True, text=True)
        if made.returncode != 0:
            print(made.stdout[-3000:] + made.stderr[-3000:])
            print("attnkit assignments failed in the copy with the third assignment")
            return 1
        print(f"copy with the third assignment generated in {time.monotonic() - started:.0f} s: {root}")
        started = time.monotonic()
        run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-n", options.workers,
                              "--dist", "loadgroup", *modules], cwd=root, env=env)
        print(f"engine tests on the three-assignment course: {len(modules)} modules, "
              f"{time.monotonic() - started:.0f} s, pytest exit {run.returncode}")
        return run.returncode
    finally:
        if options.keep:
            print(f"kept: {base}")
        else:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
