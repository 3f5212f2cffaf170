"""`make review` reaches the review's options a teacher needs: BROWSER=no serves the page and prints its
address without opening a browser (a machine reached over SSH), as `attnkit review --no-open` does; the README
says so, and how to end the review."""
from __future__ import annotations

import subprocess
import sys

import pytest

from autograder import paths


@pytest.mark.parametrize("extra, flag", [([], False), (["BROWSER=no"], True), (["BROWSER=yes"], False)])
def test_make_review_passes_browser_no_as_no_open(extra, flag):
    ran = subprocess.run(["make", "-n", "review", "OUT=out/week 3", f"PY={sys.executable}", *extra], cwd=paths.ROOT,
                         capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr
    [command] = [line for line in ran.stdout.splitlines() if "autograder.cli review" in line]
    assert command.endswith('"out/week 3"') and ("--no-open" in command) == flag


def test_the_readme_says_how_to_end_the_review_and_open_no_browser():
    readme = " ".join((paths.ROOT / "README.md").read_text(encoding="utf-8").split())
    assert "Ctrl-C ends it" in readme and "BROWSER=no" in readme
