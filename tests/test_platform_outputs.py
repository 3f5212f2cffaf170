"""The way back to the platforms, read as a teacher reads it: a class downloaded from Canvas is graded through
the command line (a Gradescope export with a group and an nbgrader course with one folder per notebook are, as
classes of 30, in tests/test_class_of_30.py), and what it writes is read back: canvas.csv against Canvas's
import (rows matched by ID, then SIS User ID, then SIS Login ID, then the exact name), the gradebook,
summary.txt, report.html, the feedback and the results JSON, for who was late and which points still wait for
review."""
from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from autograder import paths
from autograder.course import quiz_ids
from autograder.cli import main
from tests import platforms
from tests.classroom import stub_text, write_class

AS, SHA = "attention_scores", "single_head_attention"
# ada: full marks; barbara lee and linus: quiz answers that wait for review (the demo's).
CLASS = ("ada", "barbara lee", "linus")
pytestmark = pytest.mark.slow


def small_class(root: Path, people=CLASS) -> Path:
    for person in people:
        shutil.copytree(paths.DEMO_CLASS_DIR / person, root / person)
    return root


def grade(submissions: Path, out: Path, *extra: str, workers: str = "1") -> str:
    run = subprocess.run([sys.executable, "-m", "autograder.cli", "grade", str(submissions), "--out", str(out),
                          "--workers", workers, *extra], cwd=paths.ROOT, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stderr[-3000:]
    return " ".join(run.stderr.split())


def canvas_rows(out: Path) -> list[dict[str, str]]:
    """canvas.csv's student rows, as Canvas's importer reads them (the header, then a Points Possible row)."""
    with open(out / "canvas.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert rows[0]["Student"] == "    Points Possible"  # as Canvas exports it
    return rows[1:]


def blank_quiz_cells(out: Path) -> tuple[int, int]:
    """(quiz cells canvas.csv leaves blank, students with one): answers waiting for review."""
    blank = [[q for q in (f"quiz {quiz}" for quiz in quiz_ids()) if row[q] == ""] for row in canvas_rows(out)]
    return sum(map(len, blank)), sum(1 for cells in blank if cells)


def gradebook(out: Path) -> dict[str, dict[str, str]]:
    with open(out / "gradebook.csv", newline="", encoding="utf-8") as handle:
        return {row["student_id"]: row for row in csv.DictReader(handle)}


def read(out: Path, name: str) -> str:
    return (out / name).read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def canvas(tmp_path_factory):
    """A Canvas download of three students (linus late) and Canvas's Test Student, graded."""
    root = tmp_path_factory.mktemp("canvas")
    download = platforms.canvas_download(root / "download", small_class(root / "class"), late={"linus"})
    (download / f"studenttest_999999_208499999_{AS}.py").write_text(stub_text(AS), encoding="utf-8")
    out = root / "out"
    return out, grade(download, out), download


def test_canvas_csv_carries_canvas_user_ids(canvas):
    out, said, _ = canvas
    rows = {row["ID"]: row for row in canvas_rows(out)}
    people = {str(platforms.PEOPLE[p][1]): p for p in CLASS}
    assert set(rows) == set(people)  # every row matched by Canvas user id; the Test Student is left out
    for row in rows.values():
        assert row["SIS Login ID"] == "" and row["SIS User ID"] == ""  # never a name slug where a login belongs
    waiting = gradebook(out)
    for user, row in rows.items():
        student = platforms.canvas_name(platforms.PEOPLE[people[user]][0])
        assert row["Student"] == student
        pending = [q for q in quiz_ids() if row[f"quiz {q}"] == ""]
        assert bool(pending) == (waiting[student]["pending"] != "0")  # blank exactly while review is pending
    assert "canvas.csv: Canvas's Test Student left out" in said
    assert not (out / "moodle.csv").exists()  # a Canvas download has no e-mails to match on
    cells, who = blank_quiz_cells(out)   # the demo's draws decide how many; at least one waits (the point here)
    assert cells >= 1 and f"canvas.csv: {cells} quiz cell(s) of {who} student(s) left blank while answers wait " \
                          "for review" in said, said
    assert "left blank while answers wait for review" in read(out, "summary.txt")


def test_who_was_late_is_written_everywhere(canvas):
    out, said, _ = canvas
    book = gradebook(out)
    assert {sid: row["late"] for sid, row in book.items()} == {
        "lovelaceada": "no", "leebarbara": "no", "torvaldslinus": "yes", "studenttest": "no"}
    assert 'submitted late (1): "torvaldslinus"' in said
    summary = read(out, "summary.txt")
    assert 'Submitted late (1): "torvaldslinus"' in summary
    linus_row = next(line for line in summary.splitlines() if line.startswith("torvaldslinus"))
    assert " late " in f"{linus_row} "
    report = read(out, "report.html")
    assert '<tr data-student="torvaldslinus"><td class="student">torvaldslinus <span class="late">late</span>' \
        in report and report.count('<span class="late">late</span>') == 1
    assert "Submitted late (as your course site marked it)." in read(out, "feedback/torvaldslinus.md")
    assert "late" not in read(out, "feedback/lovelaceada.md").split("## Notes")[0].lower()
    linus = json.loads(read(out, "results/torvaldslinus.json"))
    assert linus["extra_data"]["late"] is True and linus["output"].startswith("Submitted late")
    assert json.loads(read(out, "results/lovelaceada.json"))["extra_data"]["late"] is False


def test_pending_points_beside_every_score(canvas):
    out, _, _ = canvas
    book = gradebook(out)
    for sid, row in book.items():
        score, top, pending = row["score"], row["max_score"], row["pending"]
        shown = f"{score} + {pending} pending / {top}" if pending != "0" else f"{score} / {top}"
        assert shown in read(out, "summary.txt"), sid
        assert f"**Score: {shown}**" in read(out, f"feedback/{sid}.md"), sid
        assert f">{shown} (" in read(out, "report.html"), sid  # the heatmap's total
        data = json.loads(read(out, f"results/{sid}.json"))
        assert data["extra_data"]["pending"] == float(pending)
        if pending != "0":
            assert f"Score {score} + {pending} pending / {top}" in data["output"]
    report = read(out, "report.html")
    waiting = [row for row in book.values() if row["pending"] != "0"]
    cells, who = blank_quiz_cells(out)
    assert len(waiting) == who >= 1 and 'id="review-banner"' in report
    total = sum(float(row["pending"]) for row in waiting)
    assert f"Review unfinished: {total:g} quiz point(s) of {who} student(s)" in report
    assert report.count('class="cell score pending"') == cells  # the quiz cells with answers waiting


def test_a_roster_join_quotes_names_and_skips_the_test_student(canvas):
    out, _, download = canvas
    roster = out.parent / "export.csv"
    roster.write_text(
        "Student,ID,SIS User ID,SIS Login ID,Section,attention_scores code (4521)\n"
        "    Points Possible,,,,,32\n"
        '"Lovelace, Ada",340934,S0001,alovelace,Sec A,\n"Lee, Barbara",340936,S0003,blee,Sec A,\n'
        '"Torvalds, Linus",340938,S0005,ltorvalds,Sec B,\n"Hopper, Grace",340937,S0004,ghopper,Sec B,\n'
        '"Student, Test",999999,,,Sec A,\n', encoding="utf-8")
    said = grade(download, out, "--roster", str(roster))  # the class is graded already: a re-run resumes
    assert 'roster: 1 Canvas student(s) without a submission: "Hopper, Grace"' in said
    assert 'roster: "studenttest" is Canvas\'s Test Student; left out of canvas.csv' in said
    assert "no Canvas student for" not in said
    summary = read(out, "summary.txt")  # what the teacher reads before uploading says it too
    assert 'roster: 1 student(s) with no submission, not in canvas.csv (Canvas keeps their cells): "Hopper, Grace"' \
        in summary and "no student of the roster matches" not in summary
    rows = canvas_rows(out)
    assert [(r["Student"], r["ID"], r["SIS Login ID"], r["Section"]) for r in rows] == [
        ("Lee, Barbara", "340936", "blee", "Sec A"), ("Lovelace, Ada", "340934", "alovelace", "Sec A"),
        ("Torvalds, Linus", "340938", "ltorvalds", "Sec B")]
    assert "attention_scores code (4521)" in rows[0]


# A Gradescope export with a group, and nbgrader with one assignment per notebook, are graded as classes of 30
# in tests/test_class_of_30.py (SIDs, times, lateness by --due, moodle.csv, quizzes beside each notebook).


def test_a_roster_without_the_column_matching_needs_is_refused(tmp_path):
    classdir = write_class(tmp_path / "class", {"ada": {f"{AS}.py": stub_text(AS)}})
    roster = tmp_path / "export.csv"
    roster.write_text('Student,ID,Section\n"Lovelace, Ada",101,A\n', encoding="utf-8")
    result = CliRunner().invoke(main, ["grade", str(classdir), "--out", str(tmp_path / "out"), "--roster",
                                       str(roster)])
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert lines[-1].startswith("--roster export.csv: the roster has no SIS Login ID column, which matching 1 of")
    assert lines[-1].endswith("grade without --roster.") and ". " not in lines[-1]
    assert not (tmp_path / "out" / "gradebook.csv").exists()  # refused before grading
