"""A class of 30 from each platform, graded through the command line as an instructor would, and read back
where the teacher and the students read it: realistic names (accents, a suffix after a second comma, shared
surnames, two students of one name), a file named as a download names it (`Attention_Scores (1).py`), and
each platform's own ways of saying when work arrived — Canvas's late mark and `-1` resubmissions, a
Gradescope export with a group of three and no due date, nbgrader with one assignment per notebook, due
dates per assignment and an extension. One graded class per platform, shared by the module's tests."""
from __future__ import annotations

import csv
import re
import subprocess
import sys
from pathlib import Path

import pytest

from autograder import paths
from autograder.reporting.escape import file_stems
from tests import platforms
from tests.classroom import stub_text

AS = "attention_scores"
SIZE = 30
pytestmark = pytest.mark.slow


def grade(submissions: Path, out: Path, *extra: str) -> str:
    run = subprocess.run([sys.executable, "-m", "autograder.cli", "grade", str(submissions), "--out", str(out),
                          "--workers", "2", *extra], cwd=paths.ROOT, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stderr[-3000:]
    return " ".join(run.stderr.split())


def csv_rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def read(out: Path, name: str) -> str:
    return (out / name).read_text(encoding="utf-8")


def row_of(rows: list[dict[str, str]], student: str) -> dict[str, str]:
    [row] = [row for row in rows if row["student_id"] == student]
    return row


# ---------------------------------------------------------------------------------------------- Canvas

@pytest.fixture(scope="module")
def canvas(tmp_path_factory):
    """30 students and Canvas's Test Student; two late, one who uploaded attention_scores.py twice."""
    root = tmp_path_factory.mktemp("canvas30")
    folder, people = platforms.class_of(root / "class", SIZE)
    download = platforms.canvas_download(root / "download", folder, late={"s003", "s010"}, people=people,
                                         resubmitted={"s004": {f"{AS}.py": stub_text(AS)}})
    (download / f"studenttest_999999_208499999_{AS}.py").write_text(stub_text(AS), encoding="utf-8")
    out = root / "out"
    return out, grade(download, out), people, len(list(download.iterdir()))


def canvas_id(people: dict, folder: str) -> str:
    sortable, user = people[folder][:2]
    slug = platforms.canvas_name(sortable)
    shared = sum(platforms.canvas_name(p[0]) == slug for p in people.values()) > 1
    return f"{slug}_{user}" if shared else slug


def test_canvas_class_of_30_goes_back_as_canvas_exports_it(canvas):
    out, said, people, files = canvas
    assert (f"Canvas download: {files} files from {SIZE + 1} students; latest resubmission kept for 1; "
            "2 submitted late") in said
    with open(out / "canvas.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    header, points, students = rows[0], rows[1], rows[2:]
    assert header[:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    # Canvas's own export writes this row so (lib/gradebook_exporter.rb); its importer finds it by the words
    assert points[:5] == ["    Points Possible", "", "", "", ""]
    assert all(re.fullmatch(r"\d+\.\d\d", cell) for cell in points[5:])
    assert sorted(row[1] for row in students) == sorted(str(p[1]) for p in people.values())  # no Test Student
    assert all(row[2] == row[3] == "" for row in students)  # no login or SIS id was known: none is made up
    book = csv_rows(out / "gradebook.csv")
    assert len(book) == SIZE + 1 and {row["lms_user_id"] for row in book} >= {str(p[1]) for p in people.values()}
    twins = [canvas_id(people, f) for f in people if people[f][0] == people["s014"][0]]
    assert len(set(twins)) == 2 and all(row_of(book, t)["score"] for t in twins)  # one name, two students


def test_canvas_says_who_was_late_and_which_upload_was_graded(canvas):
    out, said, people, _ = canvas
    book = csv_rows(out / "gradebook.csv")
    late = {row["student_id"] for row in book if row["late"] == "yes"}
    assert late == {canvas_id(people, "s003"), canvas_id(people, "s010")}
    again = canvas_id(people, "s004")
    graded = f"{AS}.py uploaded 2 times: the latest ({AS}-1.py) was graded"
    assert row_of(book, again)["arrival_note"] == graded
    assert {row["arrival_note"] for row in book if row["student_id"] != again} == {""}
    assert f"{graded}." in read(out, f"feedback/{again}.md").replace("\\_", "_")
    summary = read(out, "summary.txt")
    assert f'Graded a later upload (1): "{again}" ({graded})' in summary
    assert "graded a later upload (1): each named in summary.txt" in said
    assert "graded a later upload" in read(out, "report.html")
    # the resubmission is what was graded: the older upload is the blank handout, the latest is linus's work
    assert float(row_of(book, again)["score"]) > 0


def test_canvas_near_miss_name_and_item_statistics_threshold_are_said(canvas):
    out, _, people, _ = canvas
    renamed = canvas_id(people, "s002")
    feedback = read(out, f"feedback/{renamed}.md")
    assert "Attention\\_Scores (1).py was graded as attention\\_scores.py" in feedback
    assert float(row_of(csv_rows(out / "gradebook.csv"), renamed)["dot_scores"]) > 0
    report = read(out, "report.html")
    takers = re.search(r"here: attention: (\d+) of the class&#x27;s (\d+)|here: attention: (\d+) of the class's (\d+)",
                       report)
    assert takers and "shown from 30 takers" in report  # where the statistics would be, the threshold and the count


# ---------------------------------------------------------------------------------------------- Gradescope

@pytest.fixture(scope="module")
def gradescope(tmp_path_factory):
    """30 students, one group of three (ada with alan and barbara lee), graded with no due date; then the same
    OUT graded again (a resume: nobody is graded twice) with a due date, as a teacher adds one."""
    root = tmp_path_factory.mktemp("gradescope30")
    folder, people = platforms.class_of(root / "class", SIZE)
    export = platforms.gradescope_export(root / "export", folder, groups={"ada": ["alan", "barbara lee"]},
                                         people=people)
    out = root / "out"
    said = grade(export, out)
    undated = csv_rows(out / "gradebook.csv")
    dated = grade(export, out, "--due", "2026-11-24T23:59-08:00")  # times are 2026-11-2n (n = index mod 9)
    return out, said, people, undated, dated


def test_gradescope_class_of_30_with_a_group_of_three(gradescope):
    out, said, people, book, _ = gradescope
    assert f"Gradescope export: {SIZE - 2} submissions, {SIZE} students" in said
    assert len(book) == SIZE
    group = [row for row in book if row["sid"] in ("S0001", "S0002", "S0003")]
    assert len(group) == 3 and len({row["score"] for row in group}) == 1  # one submission, three rows
    # the export has times, no due date: the late column is there, blank ("not known"), for every student
    assert "late" in book[0] and {row["late"] for row in book} == {""}
    assert all(row["submitted_at"] for row in book)
    rows = csv_rows(out / "canvas.csv")[1:]
    assert sorted(row["SIS User ID"] for row in rows) == sorted(p[2] for p in people.values())
    assert {(row["ID"], row["SIS Login ID"]) for row in rows} == {("", "")}  # names stay out of the login
    king = [row for row in rows if row["SIS User ID"] == "S1012"]
    assert king[0]["Student"] == "Martin Luther King, Jr."  # a name with a comma stays one cell
    with open(out / "moodle.csv", newline="", encoding="utf-8") as handle:  # the e-mails Moodle matches on
        moodle = list(csv.DictReader(handle))
    assert {row["email"] for row in moodle} == {p[3] for p in people.values()}
    assert all(cell != "" for row in moodle for cell in row.values())  # an empty cell would clear a grade


def test_gradescope_due_date_given_later_marks_who_was_late(gradescope):
    out, _, people, _, said = gradescope
    assert "resuming" in said  # the re-run graded nobody again
    late = {row["student_id"]: row for row in csv_rows(out / "gradebook.csv") if row["late"] == "yes"}
    on_time = [row for row in csv_rows(out / "gradebook.csv") if row["late"] == "no"]
    assert late and on_time and len(late) + len(on_time) == SIZE
    assert all(row["submitted_at"][:10] > "2026-11-24" for row in late.values())
    assert f"--due 2026-11-25T07:59:00+00:00: {len(late)} of {SIZE} submitted after it" in said
    stems = file_stems(row["student_id"] for row in csv_rows(out / "gradebook.csv"))  # "Ana O'Brien": a slug
    for one in late:
        assert f"Submitted {late[one]['submitted_at']}, marked late." in read(out, f"feedback/{stems[one]}.md")
    assert f"Submitted late ({len(late)}): " in read(out, "summary.txt")


# ---------------------------------------------------------------------------------------------- nbgrader

PS = {a: f"ps{n}" for n, a in enumerate(paths.ASSIGNMENTS, 1)}  # one nbgrader assignment per notebook
DUE = {ps: "2026-11-30 10:05:00" if ps == "ps1" else "2026-11-30 10:30:00" for ps in PS.values()}


@pytest.fixture(scope="module")
def nbgrader(tmp_path_factory):
    """30 students, one nbgrader assignment per notebook (ps1, ps2), each with its due date; the n-th
    student's timestamps say 10:0(n mod 10), so ps1 is late from minute 6 and ps2 never; s020 has a day's
    extension on ps1."""
    root = tmp_path_factory.mktemp("nbgrader30")
    folder, people = platforms.class_of(root / "class", SIZE)
    course = platforms.nbgrader_course(root / "course", folder, per_assignment=PS,
                                       database=True, due=DUE, extensions={("s020", "ps1")}, people=people)
    out = root / "out"
    return out, grade(course, out), people


def test_nbgrader_lateness_is_per_assignment(nbgrader):
    out, said, people = nbgrader
    order = sorted(people)  # nbgrader_course stamps the n-th student (in folder order) at 10:0n
    minute = {student: index % 10 for index, student in enumerate(order)}
    book = csv_rows(out / "gradebook.csv")
    assert len(book) == SIZE
    late_ps1 = {s for s in people if minute[s] > 5 and s != "s020"}
    assert {row["student_id"] for row in book if row["late:ps1"] == "yes"} == late_ps1
    assert {row[f"late:{ps}"] for row in book for ps in list(PS.values())[1:]} == {"no"}
    assert {row["student_id"] for row in book if row["late"] == "yes"} == late_ps1
    one = sorted(late_ps1)[0]
    feedback = read(out, f"feedback/{one}.md")
    assert (f"When each part arrived: ps1: submitted 2026-11-30 10:0{minute[one]} UTC, late (due "
            "2026-11-30 10:05 UTC); ps2: submitted") in feedback and "on time (due 2026-11-30 10:30 UTC)." in feedback
    summary = read(out, "summary.txt")
    assert f"Submitted late ({len(late_ps1)}): " in summary and f'"{one}" (ps1)' in summary
    assert f"late: ps1 (submitted 2026-11-30 10:0{minute[one]}" in summary  # the student's own line
    assert "late: ps1" in read(out, "report.html")


def test_nbgrader_extension_is_named(nbgrader):
    out, said, _ = nbgrader
    row = row_of(csv_rows(out / "gradebook.csv"), "s020")
    assert (row["late:ps1"], row["late"]) == ("no", "no")  # 10:06 is before the extended due date
    assert row["arrival_note"] == "ps1: extension of 1 day (due 2026-12-01 10:05 UTC)"
    assert "1 with an extension, judged against the extended due date" in said
    assert "with an extension (1): each named in summary.txt" in said
    assert ("ps1: submitted 2026-11-30 10:06 UTC, on time (due 2026-12-01 10:05 UTC with an extension "
            "of 1 day)") in read(out, "feedback/s020.md")
    assert 'With an extension (1): "s020" (ps1: submitted' in read(out, "summary.txt")


def test_nbgrader_per_assignment_keeps_quizzes_and_near_miss_names(nbgrader):
    out, said, people = nbgrader
    assert "no answer file" not in read(out, "feedback/ada.md") and "Not graded" not in read(out, "feedback/ada.md")
    book = csv_rows(out / "gradebook.csv")
    ada = row_of(book, "ada")  # the demo's full marks, quizzes read beside each notebook
    assert ada["score"] == ada["max_score"] and ada["quiz:attention"] == "20"
    assert ada["submitted_at"].startswith("2026-11-30 10:00")
    assert "names, e-mails and LMS user ids read from gradebook.db" in said
    rows = {row["ID"]: row for row in csv_rows(out / "canvas.csv")[1:]}  # gradebook.db knew the Canvas user ids
    assert set(rows) == {str(p[1]) for p in people.values()}
    assert (rows["340934"]["Student"], rows["340934"]["SIS Login ID"]) == ("Ada Lovelace", "")
    assert (out / "moodle.csv").is_file()  # gradebook.db gave the e-mails
    assert float(row_of(book, "s002")["dot_scores"]) > 0  # Attention_Scores (1).py, kept in ps1 and graded
    assert "Attention\\_Scores (1).py was graded as attention\\_scores.py" in read(out, "feedback/s002.md")
