"""Importers: each platform's download, built from the demo class the way that platform names things, reads
as the same students with the same files as the folder-per-student demo; ids, names, the latest
resubmission, identities for the joins, and refusals of dangerous archives. Nothing here grades."""
from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
import yaml

from autograder import paths
from autograder.course import quiz_ids
from autograder.grading.importers import import_class
from autograder.grading.importers.detect import NotAClass
from autograder.grading.importers.zips import CLASS_ZIP, Refused, unpack
from autograder.grading.names import RENAMED, canonical
from autograder.grading.runner import grader_version, shipped_stubs
from autograder.grading.submissions import SPLIT, read_submission, result_stem
from autograder.results import load
from tests import platforms
from tests.classroom import solution_text, stub_text, write_class

AS, SHA = "attention_scores", "single_head_attention"
ASSIGNMENTS = list(paths.ASSIGNMENTS)
STUBS = shipped_stubs()


def read(path: Path, tmp_path: Path):
    return import_class(path, tmp_path / "stage", ASSIGNMENTS, STUBS)


def files_of(submission) -> dict[str, tuple]:
    """What grading depends on: per assignment the code cells and the problem (not where it was found)."""
    return {a: (f.cells, f.problem) for a, f in submission.files.items()}


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    found = read(paths.DEMO_CLASS_DIR, tmp_path_factory.mktemp("demo"))
    return {s.student_id: s for s in found.submissions}


def by_person(found, key=lambda folder: platforms.canvas_name(platforms.PEOPLE[folder][0])):
    return {folder: next(s for s in found.submissions if s.student_id == key(folder)) for folder in platforms.PEOPLE}


# ---------------------------------------------------------------------------------------------- Canvas

def test_canvas_download_reads_as_the_demo_class(tmp_path, demo):
    download = platforms.canvas_download(tmp_path / "canvas", late={"linus"})
    found = read(download, tmp_path)
    assert found.layout == "Canvas download"
    files = len(list(download.iterdir()))
    assert found.summary == (f"Canvas download: {files} files from 6 students; latest resubmission kept for 0; "
                             "1 submitted late")
    assert sorted(s.student_id for s in found.submissions) == sorted(
        platforms.canvas_name(p[0]) for p in platforms.PEOPLE.values())
    for folder, submission in by_person(found).items():
        assert files_of(submission) == files_of(demo[folder]), folder
        assert submission.fingerprint == demo[folder].fingerprint  # so it grades to the same scores
        identity = found.identities[submission.student_id]
        assert identity.lms_user_id == str(platforms.PEOPLE[folder][1])
    assert found.skipped == []


def test_canvas_keeps_the_latest_resubmission(tmp_path, demo):
    older = {"ada": {f"{AS}.py": stub_text(AS)}, "grace": {"quiz_attention.yaml": "att-01: nonsense\n"}}
    download = platforms.canvas_download(tmp_path / "canvas", resubmitted=older)
    assert any(p.name.endswith(f"_{AS}-1.py") for p in download.iterdir())
    found = read(download, tmp_path)
    assert "latest resubmission kept for 2" in found.summary
    people = by_person(found)
    assert files_of(people["ada"]) == files_of(demo["ada"])  # the -1 upload, not the stub uploaded first
    quiz = Path(people["grace"].quiz_folder) / "quiz_attention.yaml"
    assert quiz.read_text(encoding="utf-8") == (paths.DEMO_CLASS_DIR / "grace" / "quiz_attention.yaml").read_text(
        encoding="utf-8")


def test_canvas_same_name_two_users_and_strays(tmp_path):
    solution = solution_text(AS)
    folder = tmp_path / "canvas"
    folder.mkdir()
    (folder / f"smithbob_101_9001_{AS}.py").write_text(solution, encoding="utf-8")
    (folder / f"smithbob_102_9002_{AS}.py").write_text(solution, encoding="utf-8")
    (folder / f"leeann_late_103_9003_Attention_Scores.py").write_text(solution, encoding="utf-8")
    (folder / "notes from the TA.txt").write_text("hi", encoding="utf-8")
    found = read(folder, tmp_path)
    ids = [s.student_id for s in found.submissions]
    assert ids == ["leeann", "smithbob_101", "smithbob_102"]
    assert found.identities["smithbob_102"].lms_user_id == "102"
    assert any("'notes from the TA.txt'" in line for line in found.skipped)
    ann = found.submissions[0].files[AS]
    assert ann.problem is None and ann.notes[0].startswith(RENAMED)


def test_canvas_student_zip_is_unpacked(tmp_path, demo):
    folder = tmp_path / "canvas"
    folder.mkdir()
    platforms.zip_folder(paths.DEMO_CLASS_DIR / "ada", folder / "lovelaceada_340934_208490284_AdasWork.zip",
                         top="AdasWork")
    found = read(folder, tmp_path)
    [ada] = found.submissions
    assert files_of(ada) == files_of(demo["ada"])
    assert "Read from the zip AdasWork.zip." in ada.files[AS].notes


# ---------------------------------------------------------------------------------------------- Gradescope

@pytest.mark.parametrize("ruby_keys", [True, False])
def test_gradescope_export_joins_the_metadata(tmp_path, demo, ruby_keys):
    export = platforms.gradescope_export(tmp_path / "export", ruby_keys=ruby_keys)
    if ruby_keys:
        assert ":submitters:" in (export / "submission_metadata.yml").read_text(encoding="utf-8")
    found = read(export, tmp_path)
    assert found.layout == "Gradescope export"
    assert found.summary.startswith("Gradescope export: 6 submissions, 6 students")
    for folder, (sortable, _, sid, email) in platforms.PEOPLE.items():
        name = platforms.display_name(sortable)
        submission = next(s for s in found.submissions if s.student_id == name)
        assert files_of(submission) == files_of(demo[folder])
        identity = found.identities[name]
        assert (identity.name, identity.sid, identity.email) == (name, sid, email)


def test_gradescope_groups_unlisted_folders_and_a_wrapping_folder(tmp_path):
    export = platforms.gradescope_export(tmp_path / "wrap" / "assignment_7_export", groups={"ada": ["alan"]})
    # Gradescope exports no own submission of a group member; one pasted in by hand is kept apart, not merged.
    shutil.copytree(paths.DEMO_CLASS_DIR / "alan", export / "submission_251099")
    metadata = yaml.safe_load((export / "submission_metadata.yml").read_text(encoding="utf-8"))
    metadata["submission_251099"] = {":submitters": [{":name": "Alan Turing", ":sid": "S0002"}]}
    (export / "submission_metadata.yml").write_text(yaml.safe_dump(metadata), encoding="utf-8")
    (export / "submission_999").mkdir()
    (export / "submission_999" / f"{AS}.py").write_text(solution_text(AS), encoding="utf-8")
    found = read(tmp_path / "wrap", tmp_path)
    ids = [s.student_id for s in found.submissions]
    assert ids.count("Alan Turing") == 1 and "Alan Turing (duplicate 2)" in ids  # in a group and on his own
    assert "submission_999" in ids
    assert any("'submission_999' is not in submission_metadata.yml" in line for line in found.skipped)
    assert "1 group submission(s)" in found.summary


# ---------------------------------------------------------------------------------------------- nbgrader

def test_nbgrader_course_root_has_no_phantom_students(tmp_path, demo):
    course = platforms.nbgrader_course(tmp_path / "course")
    found = read(course, tmp_path)
    assert found.layout == "nbgrader course"
    assert sorted(s.student_id for s in found.submissions) == sorted(demo)
    for submission in found.submissions:
        assert files_of(submission) == files_of(demo[submission.student_id])
        assert not any("timestamp.txt" in n for f in submission.files.values() for n in f.notes)
    assert "submitted" not in {s.student_id for s in found.submissions}


# ---------------------------------------------------------------------------------------------- zips

def test_class_zip_of_folders(tmp_path, demo):
    archive = platforms.zip_folder(paths.DEMO_CLASS_DIR, tmp_path / "week3.zip", top="week3")
    found = read(archive, tmp_path)
    assert found.summary == "student folders: 6 students (unpacked from week3.zip)"
    assert {s.student_id: files_of(s) for s in found.submissions} == {k: files_of(v) for k, v in demo.items()}


def test_class_zip_of_a_canvas_download(tmp_path, demo):
    download = platforms.canvas_download(tmp_path / "canvas")
    found = read(platforms.zip_folder(download, tmp_path / "submissions.zip"), tmp_path)
    assert found.layout == "Canvas download" and found.summary.endswith("(unpacked from submissions.zip)")
    assert files_of(by_person(found)["grace"]) == files_of(demo["grace"])


def test_per_student_zips_in_folders_and_beside_them(tmp_path, demo):
    classdir = tmp_path / "class"
    (classdir / "ada").mkdir(parents=True)
    platforms.zip_folder(paths.DEMO_CLASS_DIR / "ada", classdir / "ada" / "submission.zip")
    platforms.zip_folder(paths.DEMO_CLASS_DIR / "grace", classdir / "grace.zip", top="grace")
    found = read(classdir, tmp_path)
    got = {s.student_id: s for s in found.submissions}
    assert files_of(got["ada"]) == files_of(demo["ada"]) and files_of(got["grace"]) == files_of(demo["grace"])
    assert "1 of them handed in as a zip beside the folders" in found.summary
    assert found.skipped == []


@pytest.mark.parametrize("kind, why", [("traversal", "leads outside the archive"),
                                       ("absolute", "leads outside the archive"),
                                       ("bomb", "expands more than 100 times"),
                                       ("many", "holds 600 files")])
def test_hostile_student_zips_are_refused_with_the_reason(tmp_path, kind, why):
    classdir = tmp_path / "class"
    (classdir / "mallory").mkdir(parents=True)
    platforms.hostile_zip(classdir / "mallory" / "work.zip", kind)
    [mallory] = read(classdir, tmp_path).submissions
    for source in mallory.files.values():
        assert why in source.problem and "nothing in it was graded" in source.problem
    assert not (tmp_path / "escaped.py").exists() and not Path("/tmp/escaped.py").exists()
    assert not list((tmp_path / "stage").rglob("*.py"))


def test_links_in_a_zip_are_not_created(tmp_path):
    archive = platforms.hostile_zip(tmp_path / "work.zip", "symlink")
    unpacked = unpack(archive, tmp_path / "out")
    assert unpacked.skipped == ["attention_scores.py (a link)"]
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["notes.txt"]


def test_size_is_measured_not_trusted(tmp_path):
    archive = tmp_path / "big.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as out:
        out.writestr("a.py", os.urandom(3 << 19).hex())  # 3 MiB of text from a 1.6 MiB file: not a bomb, too big
    small = type(CLASS_ZIP)(members=10, total_bytes=2 << 20, member_bytes=8 << 20)
    assert archive.stat().st_size < small.total_bytes  # the file itself is within the limit: unpacking is measured
    with pytest.raises(Refused, match="unpacks to more than 2 MiB"):
        unpack(archive, tmp_path / "out", small)
    assert not (tmp_path / "out").exists()


def test_a_file_that_is_not_a_zip_is_no_class(tmp_path):
    (tmp_path / "grades.csv").write_text("a,b\n", encoding="utf-8")
    with pytest.raises(NotAClass, match="is a file, not a folder of submissions"):
        read(tmp_path / "grades.csv", tmp_path)
    (tmp_path / "broken.zip").write_bytes(b"PK\x03\x04 not really")
    with pytest.raises(NotAClass, match="the class zip was not read: broken.zip is not a readable zip"):
        read(tmp_path / "broken.zip", tmp_path)


# ---------------------------------------------------------------------------------------------- names

NEAR_MISSES = ["Attention_Scores.py", "attention_scores (1).py", "attention_scores.py.txt", "attention-scores.py",
               "Copy of attention_scores.py", "attention scores copy.py", "ATTENTION_SCORES.PY", "attention_scores-2.py"]


@pytest.mark.parametrize("name", NEAR_MISSES)
def test_near_miss_names_are_graded_with_a_note(tmp_path, name):
    write_class(tmp_path, {"s": {name: solution_text(AS), "single-head attention.ipynb":
                                 (paths.SOLUTIONS_DIR / SHA / f"{SHA}.ipynb").read_text(encoding="utf-8")}})
    submission = read_submission("s", tmp_path / "s", ASSIGNMENTS, STUBS)
    source = submission.files[AS]
    assert source.problem is None and source.filename == name and source.cells == (solution_text(AS),)
    assert source.notes[0] == (f"{RENAMED}{name} was graded as {AS}.py; name the file {AS}.py next time so "
                               "that it is found for sure.")
    assert submission.files[SHA].problem is None and submission.files[SHA].notes[0].startswith(RENAMED)
    assert not any(n.startswith("Not graded:") for f in submission.files.values() for n in f.notes)


@pytest.mark.parametrize("name", ["attention_scores.pyc", "attention.py", "scores.py", "attention_scores_old.txt"])
def test_other_names_are_not_taken_for_the_assignment(name):
    assert canonical(name) is None or canonical(name)[0] != AS


def test_the_newest_near_miss_wins_and_the_exact_name_beats_them(tmp_path):
    write_class(tmp_path, {"s": {"attention_scores (1).py": stub_text(AS), "attention_scores (2).py": solution_text(AS)}})
    older = tmp_path / "s" / "attention_scores (1).py"
    os.utime(older, (time.time() - 3600, time.time() - 3600))
    source = read_submission("s", tmp_path / "s", ASSIGNMENTS, STUBS).files[AS]
    assert source.filename == "attention_scores (2).py"
    assert any(n.startswith("Not graded: attention_scores (1).py.") for n in source.notes)  # the older one
    write_class(tmp_path, {"t": {"Attention_Scores.py": stub_text(AS), f"{AS}.py": solution_text(AS)}})
    source = read_submission("t", tmp_path / "t", ASSIGNMENTS, STUBS).files[AS]
    assert source.filename == f"{AS}.py" and source.notes[0].startswith("Not graded: Attention_Scores.py.")
    assert not any(n.startswith(RENAMED) for n in source.notes)


# ---------------------------------------------------------------------------------------------- syntax errors

def test_a_py_with_a_syntax_error_is_split_into_definitions(tmp_path):
    text = solution_text(AS) + "\n\ndef broken(:\n    pass\n\n\nAFTER = 1\n"
    write_class(tmp_path, {"s": {f"{AS}.py": text}})
    source = read_submission("s", tmp_path / "s", ASSIGNMENTS, STUBS).files[AS]
    assert source.problem is None and len(source.cells) == 3  # before the error, the broken piece, after it
    broken = [c for c in source.cells if "def broken(:" in c]
    assert len(broken) == 1 and "AFTER" not in broken[0]
    line = text.splitlines().index("def broken(:") + 1
    assert broken[0].splitlines().index("def broken(:") + 1 == line  # error messages give the file's line
    assert source.notes == (f"{SPLIT}{AS}.py line {line}: invalid syntax. Python cannot run the file as a whole, "
                            "so it was graded definition by definition: only the broken part loses points.",)
    for cell in source.cells:
        if cell is not broken[0]:
            compile(cell, "cell", "exec")  # every other piece runs on its own


def test_a_docstring_running_over_column_zero_stays_in_one_piece(tmp_path):
    text = 'def f():\n    """Doc\nat column zero\n"""\n    return 1\n\ndef g(:\n    pass\n\nclass C:\n    pass\n'
    from autograder.grading.definitions import split_definitions
    cells = split_definitions(text)
    assert [c.strip().split("\n")[0] for c in cells] == ["def f():", "def g(:", "class C:"]
    compile(cells[0], "f", "exec")


# ---------------------------------------------------------------------------------------------- end to end

def lacks_a_part(folder: Path) -> bool:
    """A demo student without a file for one of the course's assignments or quizzes (whatever the course holds)."""
    names = {p.name for p in folder.iterdir()}
    return any(not {f"{a}.py", f"{a}.ipynb"} & names for a in paths.ASSIGNMENTS) or \
        any(f"quiz_{q}.yaml" not in names for q in quiz_ids())


@pytest.mark.slow
def test_a_canvas_download_of_the_demo_grades_like_the_demo(tmp_path):
    """One grading run: the demo class as Canvas downloads it (a path with a space, a late student, an older
    upload replaced by a `-1` resubmission) gets the folder demo's scores. Each student's result carries the
    fingerprint of the folder demo's submission, and a result is a function of its fingerprint (that is
    what resuming relies on, tests/test_submissions.py), so the scores are the folder demo's."""
    download = platforms.canvas_download(tmp_path / "canvas download", late={"linus"},
                                         resubmitted={"ada": {f"{AS}.py": stub_text(AS)}})
    out = tmp_path / "out"
    run = subprocess.run([sys.executable, "-m", "autograder.cli", "grade", str(download), "--out", str(out),
                          "--workers", "2"], cwd=paths.ROOT, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stderr[-3000:]
    said = " ".join(run.stderr.split())
    files = len(list(download.iterdir()))
    assert f"Canvas download: {files} files from 6 students; latest resubmission kept for 1; 1 submitted late" in said
    lacking = [f for f in paths.DEMO_CLASS_DIR.iterdir() if f.is_dir() and lacks_a_part(f)]  # as the folder demo
    assert f"Needs your attention: {len(lacking)} student(s)" in said and (out / "summary.txt").is_file()
    folder = {s.student_id: s for s in read(paths.DEMO_CLASS_DIR, tmp_path).submissions}
    version = grader_version()
    with open(out / "gradebook.csv", newline="", encoding="utf-8") as handle:
        rows = {row["student_id"]: row for row in csv.DictReader(handle)}
    for person, (sortable, user, _, _) in platforms.PEOPLE.items():
        sid = platforms.canvas_name(sortable)
        state = load(out / ".state" / f"{result_stem(sid)}.json")
        assert state.fingerprint == f"{version}-{folder[person].fingerprint}", person
        assert rows[sid]["lms_user_id"] == str(user)
    ada, grace, alan = rows["lovelaceada"], rows["hoppergrace"], rows["turingalan"]
    assert ada["score"] == ada["max_score"] and alan["score"] == "0"
    assert ada["arrival_note"] == f"{AS}.py uploaded 2 times: the latest ({AS}-1.py) was graded"
    code = [c for c in ada if c not in ("student_id", "lms_user_id", "score", "max_score", "pending", "submitted_at",
                                        "late", "arrival_note") and not c.startswith("quiz:")]
    assert code and all(grace[c] == ada[c] for c in code)
    assert not (out / ".state" / ".import").exists()  # staged copies of students' files are removed


# ---------------------------------------------------------------------------------------------- generators

from hypothesis import HealthCheck, assume, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from autograder.grading.definitions import split_definitions  # noqa: E402
from autograder.grading.importers.canvas import number, parse  # noqa: E402

SETTINGS = settings(max_examples=150, derandomize=True, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


@st.composite
def near_miss(draw, assignment=AS):
    """What browsers, OSes and students make of a file name: case, separators, copy markers, wrappers."""
    words = assignment.split("_")
    words = [draw(st.sampled_from([w, w.upper(), w.capitalize()])) for w in words]
    stem = draw(st.sampled_from(["_", "-", " ", "."])).join(words)
    stem = draw(st.sampled_from(["", "Copy of "])) + stem
    stem += draw(st.sampled_from(["", " (1)", " (12)", "-2", " copy", " - Copy", "_3"]))
    kind = draw(st.sampled_from(["py", "ipynb"]))
    ext = draw(st.sampled_from([f".{kind}", f".{kind.upper()}", f".{kind}.txt"]))
    return stem + ext, kind


@SETTINGS
@given(near_miss())
def test_every_near_miss_is_read_as_the_assignment(found):
    name, kind = found
    assert canonical(name) == (AS, kind), name


@SETTINGS
@given(st.sampled_from(["attention", "scores", "attention_score", "single_head_attention", "my_attention_scores",
                        "attention_scores_v2_notes"]), st.sampled_from([".py", ".ipynb", ".txt"]))
def test_other_files_are_not_the_assignment(stem, ext):
    assert canonical(stem + ext) in (None, (stem.casefold(), ext[1:])) and canonical(stem + ext) != (AS, "py")


def definitions_of(text: str) -> list[str]:
    """The top-level pieces of a file that parses, in order."""
    import ast
    tree = ast.parse(text)
    lines = text.splitlines(keepends=True)
    starts = [(n.decorator_list[0].lineno if getattr(n, "decorator_list", None) else n.lineno) - 1 for n in tree.body]
    return ["".join(lines[a:b]) for a, b in zip(starts, starts[1:] + [len(lines)])]


BREAKAGES = ["def broken(:\n    pass\n", "x = (1,\n", "class Oops\n    pass\n", "    indented_wrongly = 1\n",
             "return 5 5\n", "if True\n    y = 2\n"]


@SETTINGS
@given(st.sampled_from(list(paths.ASSIGNMENTS)), st.data())
def test_one_broken_piece_costs_only_itself(assignment, data):
    """Insert a broken statement between any two top-level definitions of the solution: every other
    definition still parses on its own, at its own line of the file."""
    pieces = definitions_of(solution_text(assignment))
    at = data.draw(st.integers(1, len(pieces)))
    broken = data.draw(st.sampled_from(BREAKAGES))
    text = "".join(pieces[:at]) + broken + "\n" + "".join(pieces[at:])
    assume(not _compiles(text))  # an indented line after a function is that function's last statement
    cells = split_definitions(text)
    failing = [c for c in cells if not _compiles(c)]
    assert len(failing) == 1 and broken.strip().splitlines()[0] in failing[0]
    for piece in pieces:  # each definition is in a cell that runs, with the file's line numbers
        name = piece.strip().splitlines()[-1] if piece.lstrip().startswith("@") else piece.strip().splitlines()[0]
        assert any(name in c and _compiles(c) for c in cells) or name in failing[0], name
    for cell in cells:
        offset = len(cell) - len(cell.lstrip("\n"))
        first = cell.lstrip("\n").splitlines()[0]
        assert text.splitlines()[offset] == first


def _compiles(cell: str) -> bool:
    try:
        compile(cell, "cell", "exec")
    except SyntaxError:
        return False
    return True


@SETTINGS
@given(st.from_regex(r"[a-z]{1,12}", fullmatch=True), st.booleans(), st.integers(1, 10**9), st.integers(1, 10**12),
       st.sampled_from([f"{AS}.py", f"{SHA}.ipynb", "quiz_attention.yaml", "My Work.zip"]), st.integers(0, 30))
def test_canvas_names_are_read_back(name, late, user, attachment, file, version):
    stem, ext = os.path.splitext(file)
    uploaded = f"{stem}-{version}{ext}" if version else file
    upload = parse(Path(f"{name}{'_late' if late else ''}_{user}_{attachment}_{uploaded}"))
    assert (upload.name, upload.late, upload.user, upload.attachment, upload.file, upload.version) == \
        (name, late, str(user), number(str(attachment)), file, number(str(version)))


def test_gradescope_submission_times_in_both_forms(tmp_path):
    """Ruby writes `:created_at: 2026-11-20 10:00:00.000000000 -08:00` (a YAML timestamp); a quoted ISO string
    is read as written."""
    from autograder.grading.importers.gradescope import read_metadata

    metadata = tmp_path / "submission_metadata.yml"
    metadata.write_text("submission_1:\n  :submitters:\n  - :name: Ada Lovelace\n"
                        "  :created_at: 2026-11-20 10:00:00.000000000 -08:00\n"
                        "submission_2:\n  :submitters:\n  - :name: Alan Turing\n"
                        "  :created_at: '2026-11-21T09:30:00.000000+01:00'\n", encoding="utf-8")
    people = read_metadata(metadata)
    assert people["submission_1"][0].submitted_at == "2026-11-20T10:00:00-08:00"
    assert people["submission_2"][0].submitted_at == "2026-11-21T09:30:00.000000+01:00"
    assert people["submission_1"][0].late is None  # the export has no due date: never guessed


def test_a_deadline_fills_in_lateness_only_where_the_platform_did_not_say(tmp_path):
    from autograder.grading.importers.arrival import apply_due, parse_due

    export = platforms.gradescope_export(tmp_path / "export")  # created_at 2026-11-20 ... 2026-11-25, 10:00 -08:00
    found = read(export, tmp_path)
    line = apply_due(found, parse_due("2026-11-22T10:00-08:00"))
    assert line == "--due 2026-11-22T18:00:00+00:00: 3 of 6 submitted after it"
    late = {who.name for who in found.identities.values() if who.late}
    assert late == {platforms.display_name(platforms.PEOPLE[p][0]) for p in ("grace", "linus", "margaret")}
    canvas = read(platforms.canvas_download(tmp_path / "canvas", late={"linus"}), tmp_path / "c")
    assert apply_due(canvas, parse_due("2000-01-01T00:00Z")).startswith("--due: no submission time")
    assert [who.late for who in canvas.identities.values()].count(True) == 1  # Canvas's own mark is kept
    for bad, why in (("2026-11-22T10:00", "needs a time zone"), ("next friday", "is not a date and time")):
        with pytest.raises(ValueError, match=why):
            parse_due(bad)
