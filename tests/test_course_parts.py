"""Release one part at a time: a class graded, handed out or packed for Gradescope with a selection of the
course's parts (course.py: PARTS=... or the course file's `released:`) shows the parts selected and nothing
of the others: no column, no 0, no "not graded", no test, no quiz, in any output a teacher or a student reads.
Written for any course shape: the parts are whatever source/ and quizzes/ hold."""
from __future__ import annotations

import csv
import itertools
import json
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml

from autograder import course, paths
from autograder.authoring.handout import student_readme
from autograder.authoring.master import read_master
from autograder.authoring.release import build_release
from autograder.gradescope.build import build_zip, course_file_text, kit_files
from tests import platforms

pytestmark = pytest.mark.slow
ASSIGNMENTS = paths.ASSIGNMENTS
QUIZZES = course.quiz_ids()
EVERY = course.every_part()


def exercises(assignment: str) -> list[str]:
    return read_master(paths.SOURCE_DIR / f"{assignment}.py").exercises()


def code_points(assignment: str) -> float:
    return sum(read_master(paths.SOURCE_DIR / f"{assignment}.py").points().values())


def marks_of(name: str) -> list[tuple[str, re.Pattern]]:
    """How a part shows in an output, as (name shown, pattern): an assignment by its name, its exercises named
    as code or by a name no prose uses (with an underscore or a capital); a quiz as `quiz <id>`, `quiz:<id>`
    or `quiz_<id>`."""
    if name.startswith(course.QUIZ_PREFIX):
        quiz = name[len(course.QUIZ_PREFIX):]
        return [(name, re.compile(rf"quiz[ :_]{re.escape(quiz)}(?![\w])"))]
    marks = [(name, re.compile(rf"(?<![\w]){re.escape(name)}(?![\w])"))]
    for exercise in exercises(name):
        if "_" in exercise or exercise != exercise.lower():
            marks.append((exercise, re.compile(rf"(?<![\w]){re.escape(exercise)}(?![\w])")))
        marks.append((exercise, re.compile(rf"`{re.escape(exercise)}`")))
    return marks


def shown_parts(text: str, parts: course.Parts) -> list[str]:
    """The parts NOT in `parts` that `text` shows (an exercise name a selected part also has is its own)."""
    text = re.sub(r"\\+_", "_", text)  # Markdown's escaped underscores (feedback, Gradescope's output)
    selected, own = set(parts.names()), exercises_of(parts) | set(parts.assignments)
    return [f"{name}: {shown}" for name in EVERY.names() if name not in selected
            for shown, mark in marks_of(name) if shown not in own and mark.search(text)]


def selections() -> list[course.Parts]:
    """Every non-empty selection of the course's parts (a course of a few parts: all of them)."""
    names = EVERY.names()
    return [course.select(list(chosen)) for size in range(1, len(names) + 1)
            for chosen in itertools.combinations(names, size)][:40]


# --- selections, the course file ---------------------------------------------------------------------------

def test_a_selection_names_parts_that_exist_and_keeps_the_course_order():
    reverse = list(reversed(EVERY.names()))
    assert course.select(reverse) == EVERY
    assert course.select("all") == course.select(None) == course.Parts(ASSIGNMENTS)
    for wrong in (["no_such_assignment"], [f"{course.QUIZ_PREFIX}no_such_quiz"], [ASSIGNMENTS[0].upper()], []):
        with pytest.raises(course.CourseError) as refused:
            course.select(wrong)
        assert all(name in str(refused.value) for name in EVERY.names())  # says what exists


def test_the_course_file_releases_parts(tmp_path):
    course_file = tmp_path / "course.yaml"
    assert course.released(course_file) == course.Parts(ASSIGNMENTS)  # no file: every part
    course_file.write_text(f"released: [{ASSIGNMENTS[0]}, {course.QUIZ_PREFIX}{QUIZZES[0]}]\n", encoding="utf-8")
    assert course.released(course_file) == course.Parts(ASSIGNMENTS[:1], QUIZZES[:1])
    course_file.write_text("released: all\n", encoding="utf-8")
    assert course.released(course_file) == course.Parts(ASSIGNMENTS)
    for broken in ("released: [nothing_like_it]\n", "released: 3\n", "releasd: all\n", "released: [a\n"):
        course_file.write_text(broken, encoding="utf-8")
        with pytest.raises(course.CourseError):
            course.released(course_file)


def test_the_shipped_course_file_is_read():
    assert course.COURSE_FILE.is_file()
    assert set(course.released().assignments) <= set(ASSIGNMENTS)


def test_every_master_is_an_assignment_in_the_course_order(tmp_path):
    """No list to keep: a master is an assignment as it exists; `order` places the ones it names first; a name
    in `order` with no master is refused; without masters (the Gradescope zip) the handout folders count."""
    source, handouts, course_file = tmp_path / "source", tmp_path / "assignments", tmp_path / "course.yaml"
    source.mkdir()
    for name in ("zeta", "alpha", "_helper", "mid"):
        (source / f"{name}.py").write_text("# %% [markdown]\n# x\n", encoding="utf-8")
    assert course.discover_assignments(source, handouts, course_file) == ("alpha", "mid", "zeta")
    course_file.write_text("order: [zeta, alpha]\n", encoding="utf-8")
    assert course.discover_assignments(source, handouts, course_file) == ("zeta", "alpha", "mid")
    course_file.write_text("order: [zeta, omega]\n", encoding="utf-8")
    with pytest.raises(course.CourseError, match="omega"):
        course.discover_assignments(source, handouts, course_file)
    for name in ("beta", "gamma"):
        (handouts / name).mkdir(parents=True)
        (handouts / name / f"{name}.py").write_text("", encoding="utf-8")
    (handouts / "stray").mkdir()  # no handout file in it: not an assignment
    course_file.write_text("order: [gamma, beta, omega]\n", encoding="utf-8")
    assert course.discover_assignments(tmp_path / "no-masters", handouts, course_file) == ("gamma", "beta")
    assert paths.ASSIGNMENTS == course.discover_assignments(paths.SOURCE_DIR, tmp_path, course.COURSE_FILE)


def test_a_regrade_keeps_the_selection(tmp_path, monkeypatch):
    """The command printed to apply review decisions grades the same parts again (else the columns held back
    would come back as 0s in the regrade)."""
    from autograder.commands import grade_command, record_source

    chosen = f"{ASSIGNMENTS[0]},{course.QUIZ_PREFIX}{QUIZZES[0]}"
    record_source(tmp_path, tmp_path / "class", parts=chosen)
    monkeypatch.delenv("ATTNKIT_VIA_MAKE", raising=False)
    assert grade_command(tmp_path).endswith(f"--parts {chosen}")
    monkeypatch.setenv("ATTNKIT_VIA_MAKE", "1")
    assert grade_command(tmp_path).endswith(f"PARTS={chosen}")
    record_source(tmp_path, tmp_path / "class")
    assert "PARTS" not in grade_command(tmp_path)


# --- handout and Gradescope zip: every selection -------------------------------------------------------------

def test_every_selection_hands_out_and_packs_only_its_parts(tmp_path):
    """Exhaustive over the selections: the student README, the release zip and the Gradescope zip's files."""
    quizzes = course_quizzes()
    for parts in selections():
        readme = student_readme(quizzes, parts=parts)
        assert not shown_parts(readme, parts), (parts, shown_parts(readme, parts))
        for name in parts.assignments:
            assert f"`{name}.ipynb` **or** `{name}.py`" in readme
        total = sum(code_points(a) for a in parts.assignments) + \
            sum(q.max_score for q in course_quizzes().values() if parts.has_quiz(q.id))
        assert f"**{total:g}**" in readme
        shipped = yaml.safe_load(course_file_text(parts))  # the Gradescope zip's course file
        assert course.select(shipped["released"]) == parts and tuple(shipped["order"]) == ASSIGNMENTS
        packed = set(kit_files(parts))   # the Gradescope zip's files: the released parts' graders, answers, keys only
        for name in ASSIGNMENTS:
            held = {f"autograder/graders/test_{name}.py", f"solutions/{name}/{name}.py", f"assignments/{name}/{name}.py"}
            assert (held <= packed) if name in parts.assignments else not held & packed, (name, parts)
        keys = {q.id: f"quizzes/{Path(q.source_path).name}" for q in quizzes.values()}
        assert {keys[q] for q in parts.quiz_ids()} == {n for n in packed if n.startswith("quizzes/")}, parts
    first = course.select([ASSIGNMENTS[0]])
    with zipfile.ZipFile(build_release(tmp_path / "handout.zip", parts=first)) as archive:
        names = archive.namelist()
        text = "\n".join(archive.read(n).decode("utf-8") for n in names if n.endswith((".md", ".yaml")))
    assert not [n for n in names if "/quizzes/" in n]
    assert not [n for n in names if any(f"/{a}/" in n for a in ASSIGNMENTS[1:])]
    assert not shown_parts(text, first)


def course_quizzes():
    from autograder.quiz import load_quizzes

    return load_quizzes(paths.QUIZZES_DIR, formulas=False)


# --- a class graded with one part released --------------------------------------------------------------------

def grade(submissions: Path, out: Path, parts: str) -> str:
    run = subprocess.run([sys.executable, "-m", "autograder.cli", "grade", str(submissions), "--out", str(out),
                          "--workers", "1", "--parts", parts], cwd=paths.ROOT, capture_output=True, text=True,
                         timeout=900)
    assert run.returncode == 0, run.stderr[-3000:]
    return " ".join(run.stderr.split())


def columns(path: Path) -> list[str]:
    with open(path, newline="", encoding="utf-8") as handle:
        return next(csv.reader(handle))


def outputs(out: Path) -> dict[str, str]:
    """Every file a person reads in OUT (the engine's own .state left out)."""
    return {p.relative_to(out).as_posix(): p.read_text(encoding="utf-8") for p in sorted(out.rglob("*"))
            if p.is_file() and ".state" not in p.relative_to(out).parts and p.suffix in (".csv", ".txt", ".md",
                                                                                           ".json", ".html")}


LEGEND = "each line says what was not graded, or how it was graded"  # the report's rule, naming no part
SELECTIONS = {
    "first assignment alone": lambda: [ASSIGNMENTS[0]],
    # (a later assignment with a quiz, released alone: tests/test_new_assignment.py grades its new lesson so)
}


@pytest.fixture(scope="module", params=list(SELECTIONS))
def graded(request, tmp_path_factory):
    """Two demo students exported from Gradescope (e-mails: moodle.csv is written), graded with one
    selection through the command line."""
    root = tmp_path_factory.mktemp("parts")
    people = sorted(p.name for p in paths.DEMO_CLASS_DIR.iterdir() if p.name in platforms.PEOPLE)[:2]
    source = root / "class"
    for person in people:
        shutil.copytree(paths.DEMO_CLASS_DIR / person, source / person)
    export = platforms.gradescope_export(root / "export", source)
    names = SELECTIONS[request.param]()
    out = root / "out"
    said = grade(export, out, ",".join(names))
    return course.select(names), out, said


def test_what_is_not_released_appears_in_no_output(graded):
    parts, out, said = graded
    files = outputs(out)
    assert {"gradebook.csv", "canvas.csv", "summary.txt", "report.html"} <= set(files)
    assert any(name.startswith("feedback/") for name in files) and any(name.startswith("results/") for name in files)
    for name, text in {**files, "terminal": said}.items():
        assert not shown_parts(text, parts), (name, shown_parts(text, parts))
        assert "not graded" not in text.lower().replace(LEGEND, ""), name
    code = [e for a in parts.assignments for e in exercises(a) if read_master(
        paths.SOURCE_DIR / f"{a}.py").points()[e]]
    quizzes = [f"quiz {q}" for q in parts.quiz_ids()]
    book = columns(out / "gradebook.csv")
    assert [c for c in book if c in code or c.startswith("quiz")] == code + [f"quiz:{q}" for q in parts.quiz_ids()]
    canvas = columns(out / "canvas.csv")
    assert canvas[5:] == [f"{a} code" for a in parts.assignments] + quizzes
    most = sum(code_points(a) for a in parts.assignments) + \
        sum(q.max_score for q in course_quizzes().values() if parts.has_quiz(q.id))
    with open(out / "gradebook.csv", newline="", encoding="utf-8") as handle:
        assert {float(row["max_score"]) for row in csv.DictReader(handle)} == {most}
    for name, text in files.items():
        if name.startswith("results/"):
            data = json.loads(text)
            assert data["max_score"] == most
            assert {t["name"].split(":")[0] for t in data["tests"] if t["max_score"]} <= \
                {*parts.assignments, *exercises_of(parts), *(f"quiz {q}" for q in parts.quiz_ids())}
    if (out / "moodle.csv").exists():
        assert not [c for c in columns(out / "moodle.csv")[1:] if c not in [f"{a} code" for a in parts.assignments]
                    + quizzes]


def exercises_of(parts: course.Parts) -> set[str]:
    return {e for a in parts.assignments for e in exercises(a)}


def test_the_gradescope_zip_of_the_first_assignment_grades_only_it(tmp_path):
    """The zip for the first assignment alone, unpacked as Gradescope does, grades a submission of every part:
    the results hold that assignment's tests and points only, and say nothing of the file handed in early."""
    parts = course.select(SELECTIONS["first assignment alone"]())
    root = tmp_path / "autograder"
    with zipfile.ZipFile(build_zip(tmp_path / "autograder.zip", parts=parts)) as packed:
        packed.extractall(root / "source")
    (root / "source" / "run_autograder").chmod(0o755)
    submission, results = root / "submission", root / "results"
    results.mkdir()
    shutil.copytree(paths.DEMO_CLASS_DIR / "ada", submission)  # every part handed in
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "AUTOGRADER_ROOT": str(root),
           "AUTOGRADER_PYTHON": sys.executable}
    run = subprocess.run([str(root / "source" / "run_autograder")], env=env, capture_output=True, text=True,
                         timeout=900)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    data = json.loads((results / "results.json").read_text(encoding="utf-8"))
    most = sum(code_points(a) for a in parts.assignments) + \
        sum(q.max_score for q in course_quizzes().values() if parts.has_quiz(q.id))
    assert data["max_score"] == most and data["score"] == most  # ada: the reference, right answers
    text = json.dumps(data, ensure_ascii=False)
    assert not shown_parts(text, parts) and "not graded" not in text.lower()
