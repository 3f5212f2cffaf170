"""`attnkit grade` refuses the dangerous and the meaningless before grading anything: exit status 2 and one
sentence, never a traceback."""
from __future__ import annotations

import os
import shlex
import subprocess

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


# ---------------------------------------------------------------------------------------------- closing summary

def synthetic_class(size: int):
    from autograder.results import FAILED, PASSED, QuizResult, StudentResult, TestResult

    results = []
    for index in range(size):
        easy = TestResult("a::test_easy", "easy", "a", "q1", 1, 1, PASSED)
        hard = TestResult("a::test_hard", "hard", "a", "q2", 2 if index % 3 else 0, 2, PASSED if index % 3 else FAILED)
        flag = TestResult("a::test_flag", "flag", "a", "q1", 0, 0, FAILED, attempted=False, visibility="hidden")
        problems = ("no b.py or b.ipynb in the submission",) if index % 7 == 0 else ()
        quiz = QuizResult("quiz1", 0, 3, problem="no answer file quiz_quiz1.yaml handed in, quiz scored 0") \
            if index % 11 == 0 else QuizResult("quiz1", 3, 3)
        results.append(StudentResult(f"student{index:03d}", (easy, hard, flag), (quiz,), problems=problems))
    return results


def test_the_closing_summary_of_300_students_fits_a_screen():
    from autograder.reporting.summary import closing_summary, full_table

    results = synthetic_class(300)
    text = closing_summary(results, ["skipped 'notes.txt': a file, not a student folder"], "OUT/summary.txt")
    lines = text.splitlines()
    assert len(lines) <= 40, text
    affected = {r.student_id for r in results if r.problems or any(q.problem for q in r.quizzes)}
    assert f"Needs your attention: {len(affected)} student(s); by file or answer: 71 not handed in" in text
    assert f"... and {len(affected) - 10} more student(s): every one in OUT/summary.txt" in text
    assert "Score distribution" in text and "Not a student's submission, so not graded: 1 entry" in text
    table = full_table(results, [])
    assert all(f"{sid}: " in table for sid in affected) and len(table.splitlines()) > 300


def test_hardest_tests_leave_out_tests_everyone_passed_and_zero_point_flags():
    from autograder.reporting.summary import plain_summary

    text = plain_summary(synthetic_class(30))
    hardest = text.split("Hardest tests", 1)[1].split("\n")[1:]
    listed = [line for line in hardest if line.startswith("  ")]
    assert [line.split()[1] for line in listed] == ["a::test_hard:"]
    assert "test_easy" not in text and "test_flag" not in text


def test_the_gradebook_carries_what_the_platform_knows():
    import csv
    import io

    from autograder.grading.importers import Identity
    from autograder.reporting.gradebook import gradebook_csv
    from autograder.reporting.roster import join_roster, read_canvas_export

    results = synthetic_class(3)
    identities = {"student000": Identity(name="Ada Lovelace", email="ada@uni.example", sid="S1", lms_user_id="101"),
                  "student001": Identity(lms_user_id="=cmd|calc")}
    rows = list(csv.reader(io.StringIO(gradebook_csv(results, identities))))
    assert rows[0][:5] == ["student_id", "name", "email", "sid", "lms_user_id"]
    # a platform's class always has the arrival columns, blank where the platform did not say
    assert rows[0][-5:] == ["score", "max_score", "pending", "submitted_at", "late"]
    assert all(row[-2:] == ["", ""] for row in rows[1:])
    assert rows[1][:5] == ["student000", "Ada Lovelace", "ada@uni.example", "S1", "101"]
    assert rows[2][4] == "'=cmd|calc" and rows[3][1:5] == ["", "", "", ""]
    plain = list(csv.reader(io.StringIO(gradebook_csv(results))))
    assert plain[0][:2] == ["student_id", "q1"]  # no identity known: the columns of a folder class
    assert plain[0][-3:] == ["score", "max_score", "pending"]  # and no arrival columns: nothing can be known
    entries, _ = read_canvas_export("Student,ID,SIS User ID,SIS Login ID,Section\n"
                                    '"Lovelace, Ada",101,S9,alovelace,A\n"Other, Person",102,S1,other,A\n')
    joined = join_roster(["student000", "student002"], entries, identities)
    assert joined.matched["student000"][0].name == "Lovelace, Ada" and joined.matched["student000"][1] == "Canvas ID"
    assert joined.unmatched == ["student002"]


@pytest.mark.parametrize("due, why", [("2026-11-22T10:00", "needs a time zone"), ("friday", "is not a date")])
def test_a_deadline_without_a_time_zone_is_refused(classdir, tmp_path, due, why):
    refused(run_grade(classdir, "--out", tmp_path / "out", "--due", due), why)
    assert not (tmp_path / "out").exists()
