"""`attnkit grade` refuses the dangerous and the meaningless before grading anything: exit status 2 and one
sentence, never a traceback."""
from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from autograder import paths
from autograder.cli import main
from tests.classroom import solution_text, write_class


def run_grade(*args: str):
    return CliRunner().invoke(main, ["grade", *map(str, args)])


def one_sentence(output: str) -> str:
    lines = [line for line in output.splitlines() if line.strip()]
    assert "Traceback" not in output
    assert lines[-1].endswith(".") and lines[-1].count(". ") == 0, lines
    return lines[-1]


@pytest.fixture
def classdir(tmp_path):
    return write_class(tmp_path / "class", {"ana": {"attention_scores.py": solution_text("attention_scores")}})


def refused(result, *words: str) -> None:
    assert result.exit_code == 2, result.output
    sentence = one_sentence(result.output)
    for word in words:
        assert word in sentence, sentence


def test_out_inside_submissions_is_refused(classdir):
    refused(run_grade(classdir, "--out", classdir / "out"), "is inside SUBMISSIONS", "would grade it as a student")
    refused(run_grade(classdir, "--out", classdir), "is inside SUBMISSIONS")
    assert not (classdir / "out" / ".state").exists()


def test_submissions_inside_out_is_refused(classdir):
    refused(run_grade(classdir, "--out", classdir.parent), "is inside OUT", "among the students' files")


@pytest.mark.parametrize("workers", ["0", "-3"])
def test_workers_below_one_are_refused(classdir, tmp_path, workers):
    refused(run_grade(classdir, "--out", tmp_path / "out", "--workers", workers),
            f"--workers must be at least 1 (got {workers})")


def test_an_empty_class_is_refused(tmp_path):
    (tmp_path / "empty").mkdir()
    refused(run_grade(tmp_path / "empty", "--out", tmp_path / "out"), "holds no student submission to grade")
    (tmp_path / "files only").mkdir()
    (tmp_path / "files only" / "notes.txt").write_text("x", encoding="utf-8")
    refused(run_grade(tmp_path / "files only", "--out", tmp_path / "out2"), "holds no student submission")


def test_an_unwritable_out_is_refused(classdir, tmp_path):
    blocker = tmp_path / "a file"
    blocker.write_text("x", encoding="utf-8")
    refused(run_grade(classdir, "--out", blocker / "out"), "cannot be written", "choose another --out")
    if os.geteuid() != 0:  # root writes anywhere: the file above covers it
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        refused(run_grade(classdir, "--out", locked / "out"), "cannot be written")


def test_a_file_that_is_no_class_is_refused(tmp_path):
    (tmp_path / "grades.csv").write_text("a,b\n", encoding="utf-8")
    refused(run_grade(tmp_path / "grades.csv", "--out", tmp_path / "out"), "is a file, not a folder of submissions")
    (tmp_path / "broken.zip").write_bytes(b"PK\x03\x04 not a zip")
    refused(run_grade(tmp_path / "broken.zip", "--out", tmp_path / "out"), "the class zip was not read")


def test_make_grade_passes_a_path_with_spaces_as_one_argument(tmp_path):
    dry = subprocess.run(["make", "-n", "-o", ".venv/.installed-stamp", "-o", "sandbox-tools", "grade",
                          "SUBMISSIONS=/some class/week 3", "OUT=/out dir/a b"], cwd=paths.ROOT,
                         capture_output=True, text=True, check=True)
    command = next(line for line in dry.stdout.splitlines() if "autograder.cli grade" in line)
    argv = shlex.split(command)
    assert argv[argv.index("grade") + 1:] == ["/some class/week 3", "--out", "/out dir/a b"]
