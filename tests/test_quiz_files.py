"""Quiz answer files are read wherever the student's code was found, in every layout the importers read:
a plain folder, the handout's quizzes/ folder, the handout's per-assignment folders, a zip's top folder,
nbgrader's per-assignment folders (named like the kit's assignments or not), a Canvas download (flat,
or a zip uploaded), a Gradescope export (with a group). Each layout is built from one student's demo files;
what is checked is what grading reads: the sheet each quiz gets (nothing is graded here)."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
import yaml

from autograder import paths
from autograder.grading.importers import import_class
from autograder.grading.quizzes import _read, load_class_quizzes
from autograder.grading.runner import shipped_stubs
from tests import platforms

AS, SHA = "attention_scores", "single_head_attention"
ASSIGNMENTS = list(paths.ASSIGNMENTS)
ADA = paths.DEMO_CLASS_DIR / "ada"
QUIZ_FILES = sorted(p.name for p in ADA.glob("quiz_*.yaml"))
CODE_FILES = sorted(p.name for p in ADA.iterdir() if p.name not in QUIZ_FILES)


@pytest.fixture(scope="module")
def quizzes():
    return load_class_quizzes()


def copy(names, target: Path) -> None:
    target.mkdir(parents=True, exist_ok=True)
    for name in names:
        shutil.copyfile(ADA / name, target / name)


def beside_each_notebook(student: Path, folder_of=lambda assignment: assignment) -> None:
    """One folder per assignment, its code and the quiz of its lesson inside."""
    for assignment, quizzes in platforms.quiz_beside().items():
        copy([n for n in CODE_FILES if n.startswith(assignment)] + quizzes, student / folder_of(assignment))


def one_student_class(root: Path, build) -> Path:
    source = root / "source"
    build(source / "ada")
    return source


LAYOUTS = {
    "flat folder": lambda s: copy(CODE_FILES + QUIZ_FILES, s),
    "handout quizzes folder": lambda s: (copy(CODE_FILES, s), copy(QUIZ_FILES, s / "quizzes")),
    "handout per-assignment folders": lambda s: beside_each_notebook(s / "attention-kit"),
    "assignment folders": beside_each_notebook,
    "folders named by the course": lambda s: beside_each_notebook(s, lambda a: f"week{3 + ASSIGNMENTS.index(a)}"),
    "one folder down": lambda s: copy(CODE_FILES + QUIZ_FILES, s / "ada-work"),
    "an answers folder beside the code": lambda s: (copy(CODE_FILES, s), copy(QUIZ_FILES, s / "answers")),
}


def sheets(found, quizzes) -> dict[str, dict[str, object]]:
    """student id -> quiz id -> what grading reads: the answers, or why there are none."""
    read = {}
    for submission in found.submissions:
        folder = Path(submission.quiz_folder)
        read[submission.student_id] = {}
        for quiz in quizzes:
            sheet = _read(quiz, folder, submission.quiz_files)
            read[submission.student_id][quiz.id] = sheet if isinstance(sheet, str) else sheet.answers
    return read


def expected(quizzes) -> dict[str, dict]:
    return {q.id: yaml.safe_load((ADA / f"quiz_{q.id}.yaml").read_text(encoding="utf-8")) for q in quizzes}


def assert_every_quiz_read(found, quizzes, student: str) -> None:
    got = sheets(found, quizzes)[student]
    assert got == expected(quizzes), got
    submission = next(s for s in found.submissions if s.student_id == student)
    assert not any(f.problem for f in submission.files.values())  # the code was found too


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_student_folder_layouts(tmp_path, quizzes, layout):
    source = one_student_class(tmp_path, LAYOUTS[layout])
    found = import_class(source, tmp_path / "stage", ASSIGNMENTS, shipped_stubs())
    assert_every_quiz_read(found, quizzes, "ada")
    notes = " ".join(n for f in found.submissions[0].files.values() for n in f.notes)
    assert "Not graded" not in notes  # the folders the work came from are not called stray files


@pytest.mark.parametrize("layout", ["flat folder", "assignment folders", "folders named by the course"])
@pytest.mark.parametrize("zipped", [False, True])
def test_nbgrader_course_root(tmp_path, quizzes, layout, zipped):
    source = one_student_class(tmp_path, LAYOUTS["flat folder"])  # the generator lays each layout out
    course = tmp_path / "course"
    if layout == "flat folder":
        platforms.nbgrader_course(course, source)
    else:
        ids = {a: a if layout == "assignment folders" else f"ps{n}" for n, a in enumerate(ASSIGNMENTS, 1)}
        platforms.nbgrader_course(course, source, per_assignment=ids)
    submitted = course
    if zipped:
        submitted = platforms.zip_folder(course, tmp_path / "course.zip")
    found = import_class(submitted, tmp_path / "stage", ASSIGNMENTS, shipped_stubs())
    assert found.layout == "nbgrader course"
    assert_every_quiz_read(found, quizzes, "ada")
    assert found.identities["ada"].submitted_at.startswith("2026-11-30 10:00")
    assert "gradebook.db not read (file is not a database)" in found.summary


def test_canvas_download_flat_and_a_zip_upload(tmp_path, quizzes):
    source = one_student_class(tmp_path, LAYOUTS["flat folder"])
    found = import_class(platforms.canvas_download(tmp_path / "canvas", source), tmp_path / "stage", ASSIGNMENTS,
                         shipped_stubs())
    assert_every_quiz_read(found, quizzes, "lovelaceada")
    uploads = tmp_path / "canvas zip"
    uploads.mkdir()
    work = tmp_path / "work"
    beside_each_notebook(work)
    platforms.zip_folder(work, uploads / "lovelaceada_340934_208490284_work.zip", top="work")
    found = import_class(uploads, tmp_path / "stage2", ASSIGNMENTS, shipped_stubs())
    assert_every_quiz_read(found, quizzes, "lovelaceada")


def test_gradescope_export_with_a_group(tmp_path, quizzes):
    source = one_student_class(tmp_path, beside_each_notebook)
    export = platforms.gradescope_export(tmp_path / "export", source, groups={"ada": ["alan"]})
    found = import_class(export, tmp_path / "stage", ASSIGNMENTS, shipped_stubs())
    for student in ("Ada Lovelace", "Alan Turing"):  # both submitters of the group read the same answers
        assert_every_quiz_read(found, quizzes, student)
        assert found.identities[student].submitted_at.startswith("2026-11-20")


def test_a_copy_beside_the_code_wins_over_one_in_another_folder(tmp_path, quizzes):
    source = one_student_class(tmp_path, LAYOUTS["flat folder"])
    old = source / "ada" / "old"
    old.mkdir()
    (old / "quiz_attention.yaml").write_text("att-01: b\n", encoding="utf-8")  # newer, but not where the code is
    found = import_class(source, tmp_path / "stage", ASSIGNMENTS, shipped_stubs())
    assert_every_quiz_read(found, quizzes, "ada")


def test_copies_that_differ_grade_the_newest_and_say_so(tmp_path, quizzes):
    source = one_student_class(tmp_path, beside_each_notebook)
    student = source / "ada"
    stale = student / "quizzes" / "quiz_attention.yaml"
    copy(["quiz_attention.yaml"], stale.parent)
    stale.write_text("att-01: b\n", encoding="utf-8")  # an older, different attempt
    old = (student / SHA / "quiz_attention.yaml").stat().st_mtime - 3600
    os.utime(stale, (old, old))
    same = student / "quizzes" / "quiz_attention_score.yaml"  # an identical copy: nothing to say
    shutil.copyfile(student / AS / "quiz_attention_score.yaml", same)
    found = import_class(source, tmp_path / "stage", ASSIGNMENTS, shipped_stubs())
    assert_every_quiz_read(found, quizzes, "ada")
    notes = [n for f in found.submissions[0].files.values() for n in f.notes if "handed in more than once" in n]
    assert notes == ["quiz_attention.yaml was handed in more than once, with different answers (quizzes, "
                     f"{SHA}); graded the newest: {SHA}/quiz_attention.yaml."]


def test_a_link_beside_the_code_is_refused_not_followed(tmp_path, quizzes):
    source = one_student_class(tmp_path, beside_each_notebook)
    target = source / "ada" / SHA / "quiz_attention.yaml"
    target.unlink()
    target.symlink_to(paths.QUIZZES_DIR / "attention.yaml")  # the answer key
    found = import_class(source, tmp_path / "stage", ASSIGNMENTS, shipped_stubs())
    got = sheets(found, quizzes)["ada"]
    assert "not a regular file" in got["attention"]


def test_nbgrader_gradebook_gives_names_emails_and_lms_ids(tmp_path):
    course = platforms.nbgrader_course(tmp_path / "course", one_student_class(tmp_path, LAYOUTS["flat folder"]),
                                       database=True)
    database = (course / "gradebook.db").read_bytes()
    found = import_class(course, tmp_path / "stage", ASSIGNMENTS, shipped_stubs())
    ada = found.identities["ada"]
    assert (ada.name, ada.email, ada.lms_user_id) == ("Ada Lovelace", "ada@uni.example", "340934")
    assert found.summary.endswith("names, e-mails and LMS user ids read from gradebook.db")
    assert (course / "gradebook.db").read_bytes() == database  # read-only: not even a journal
    assert sorted(p.name for p in course.iterdir() if p.name.startswith("gradebook")) == ["gradebook.db"]


def test_a_students_zip_beside_the_folders(tmp_path, quizzes):
    work = tmp_path / "work"
    beside_each_notebook(work / "ada-work")
    source = tmp_path / "class"
    copy(CODE_FILES, source / "grace")  # a folder beside the zip: the class is read as student folders
    platforms.zip_folder(work, source / "ada.zip")
    found = import_class(source, tmp_path / "stage", ASSIGNMENTS, shipped_stubs())
    assert_every_quiz_read(found, quizzes, "ada")


def test_nbgrader_due_dates_say_who_was_late_and_extensions_count_as_nbgrader_counts_them(tmp_path):
    source = tmp_path / "class"
    for person in ("ada", "alan", "barbara lee"):  # timestamps 10:00, 10:01, 10:02 on 2026-11-30 (UTC)
        shutil.copytree(paths.DEMO_CLASS_DIR / person, source / person)
    ids = {a: f"ps{n}" for n, a in enumerate(ASSIGNMENTS, 1)}  # ps1: the first assignment; later ones due later
    due = {"ps1": "2026-11-30 10:00:30.000000", **{ps: "2026-12-01 00:00:00" for ps in list(ids.values())[1:]}}
    course = platforms.nbgrader_course(tmp_path / "course", source, per_assignment=ids, database=True, due=due,
                                       extensions={("barbara lee", "ps1"): 2})
    found = import_class(course, tmp_path / "stage", ASSIGNMENTS, shipped_stubs())
    # barbara lee's ps1 came at 10:02, after ps1's due date but within her two hours' extension: on time
    assert {sid: who.late for sid, who in found.identities.items()} == {"ada": False, "alan": True,
                                                                        "barbara lee": False}
    assert found.summary.endswith("due dates from gradebook.db: 1 submitted late; 1 with an extension, judged "
                                  "against the extended due date")
    alan = found.identities["alan"].arrival()
    assert (alan["submitted_at"], alan["late"], alan["late:ps1"], alan["late:ps2"]) == (
        "2026-11-30 10:01 UTC", "yes", "yes", "no")
    assert found.identities["barbara lee"].arrival()["arrival_note"] == (
        "ps1: extension of 2 hours (due 2026-11-30 12:00:30 UTC)")  # seconds shown where not zero


def test_quiz_files_uploaded_beside_a_zip_of_the_code(tmp_path, quizzes):
    """Canvas keeps each upload a file of its own: the code zipped, the quiz files beside it."""
    work = tmp_path / "work"
    copy(CODE_FILES, work)
    uploads = tmp_path / "canvas"
    uploads.mkdir()
    platforms.zip_folder(work, uploads / "lovelaceada_340934_208490284_code.zip")
    for index, name in enumerate(QUIZ_FILES):
        shutil.copyfile(ADA / name, uploads / f"lovelaceada_340934_20849029{index}_{name}")
    found = import_class(uploads, tmp_path / "stage", ASSIGNMENTS, shipped_stubs())
    assert_every_quiz_read(found, quizzes, "lovelaceada")
