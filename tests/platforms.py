"""Platform-shaped downloads of a class, built in code from a folder-per-student class (the demo class by
default, or a class of any size from `class_of`), named the way each platform names things
(tests/test_importers.py; facts in docs/submissions.md). Nothing here is committed as a binary: every zip is
written on the fly."""
from __future__ import annotations

import os
import re
import shutil
import stat
import zipfile
from datetime import datetime, timedelta
from pathlib import Path

import yaml

from autograder import paths

# The demo class as Canvas and Gradescope know it: sortable name, Canvas user id, SID, e-mail.
PEOPLE = {
    "ada": ("Lovelace, Ada", 340934, "S0001", "ada@uni.example"),
    "alan": ("Turing, Alan", 340935, "S0002", "aturing@uni.example"),
    "barbara lee": ("Lee, Barbara", 340936, "S0003", "blee@uni.example"),
    "grace": ("Hopper, Grace", 340937, "S0004", "ghopper@uni.example"),
    "linus": ("Torvalds, Linus", 340938, "S0005", "lt@uni.example"),
    "margaret": ("Hamilton, Margaret", 340939, "S0006", "mh@uni.example"),
}


# Names as a course's roster holds them: accents, apostrophes, hyphens, two-word surnames, a suffix after a
# second comma ("King, Martin Luther, Jr." is "Martin Luther King, Jr."), surnames shared by several students
# and one full name shared by two (Canvas then tells them apart by user id).
FIRST = ("Zoë", "José", "Siobhán", "Wei", "Anna", "Ngozi", "Björn", "Amélie", "Priya", "Chloé", "Mateus", "Ana",
         "Martin Luther", "Søren", "Aiko", "Émile", "Fatima", "Dmitri", "Lucía", "Omar")
LAST = ("Lee", "García Márquez", "O'Brien", "Nguyễn", "Müller", "Okafor", "Lee", "Dubois-Martin", "Ñúñez",
        "Lee", "Kowalski", "Haddad", "Østergaard", "Tanaka", "Kim")


def class_people(size: int) -> dict[str, tuple[str, int, str, str]]:
    """`size` students (folder name -> sortable name, Canvas user id, SID, e-mail), the same for the same size:
    the demo's six first, then generated ones (see FIRST/LAST), one of them with a suffix and two with one name."""
    people = dict(list(PEOPLE.items())[:size])
    index = 0
    while len(people) < size:
        first, last = FIRST[index % len(FIRST)], LAST[(index * 7) % len(LAST)]
        sortable = "King, Martin Luther, Jr." if first == "Martin Luther" else f"{last}, {first}"
        if index == 15:
            sortable = people[next(iter(reversed(people)))][0]  # a second student of the same name
        folder = f"s{index:03d}"
        people[folder] = (sortable, 341000 + index, f"S1{index:03d}", f"{folder}@uni.example")
        index += 1
    return people


def class_of(target: Path, size: int, source: Path = paths.DEMO_CLASS_DIR) -> tuple[Path, dict]:
    """A folder-per-student class of `size`: each student hands in a copy of one demo student's work (in
    turn), so the class holds full marks, notebooks, pending quiz answers and missing parts; the ninth
    student named a file as a download does (`Attention_Scores (1).py`). Returns the folder and its people
    (for `people=` below)."""
    people = class_people(size)
    demo = sorted(p for p in source.iterdir() if p.is_dir())
    for index, folder in enumerate(people):
        shutil.copytree(demo[index % len(demo)], target / folder)
        if index == 8 and (target / folder / "attention_scores.py").is_file():
            (target / folder / "attention_scores.py").rename(target / folder / "Attention_Scores (1).py")
    return target, people


def canvas_name(sortable: str) -> str:
    """"Lee, Barbara" -> "leebarbara": lower-cased, without spaces or punctuation (accents kept: Canvas keeps
    letters, "Müller, Björn" -> "müllerbjörn")."""
    return re.sub(r"[\W_]+", "", sortable.lower())


def display_name(sortable: str) -> str:
    """"Lee, Barbara" -> "Barbara Lee"; "King, Martin Luther, Jr." -> "Martin Luther King, Jr."."""
    last, first = (part.strip() for part in sortable.split(",", 1))
    first, _, suffix = (part.strip() for part in first.partition(","))
    return f"{first} {last}" + (f", {suffix}" if suffix else "")


def student_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file())


def canvas_download(target: Path, source: Path = paths.DEMO_CLASS_DIR, late: set[str] = frozenset(),
                    resubmitted: dict[str, dict[str, str]] | None = None, people: dict = PEOPLE) -> Path:
    """Canvas's flat folder. `resubmitted` maps a student to {file name: an OLDER version's text}: the older
    upload keeps the plain name and a smaller attachment id, the class's file becomes `<stem>-1<ext>`. Two
    students of one name are told apart as Canvas does, by their user id."""
    target.mkdir(parents=True, exist_ok=True)
    attachment = 208490000
    for folder in sorted(p for p in source.iterdir() if p.is_dir()):
        sortable, user, _, _ = people[folder.name]
        prefix = canvas_name(sortable) + ("_late" if folder.name in late else "") + f"_{user}"
        older = (resubmitted or {}).get(folder.name, {})
        for name, text in older.items():
            attachment += 1
            (target / f"{prefix}_{attachment}_{name}").write_text(text, encoding="utf-8")
        for file in student_files(folder):
            attachment += 1
            name = file.relative_to(folder).as_posix().replace("/", "_")
            if name in older:
                stem, ext = os.path.splitext(name)
                name = f"{stem}-1{ext}"
            shutil.copyfile(file, target / f"{prefix}_{attachment}_{name}")
    return target


def gradescope_export(target: Path, source: Path = paths.DEMO_CLASS_DIR, ruby_keys: bool = True,
                      groups: dict[str, list[str]] | None = None, people: dict = PEOPLE) -> Path:
    """`submission_<id>/` folders and submission_metadata.yml. `groups` maps a student to group partners
    (extra submitters of the same submission). As on Gradescope, a group member has no submission of their
    own: a partner's folder in `source` is not exported."""
    target.mkdir(parents=True, exist_ok=True)
    key = (lambda k: f":{k}") if ruby_keys else (lambda k: k)
    partners = {p for members in (groups or {}).values() for p in members}
    metadata = {}
    folders = [p for p in sorted(source.iterdir()) if p.is_dir() and p.name not in partners]
    for index, folder in enumerate(folders):
        submission = f"submission_{251000 + index}"
        shutil.copytree(folder, target / submission)
        submitters = [folder.name, *(groups or {}).get(folder.name, [])]
        metadata[submission] = {
            key("submitters"): [{key("name"): display_name(people[p][0]), key("sid"): people[p][2],
                                 key("email"): people[p][3]} for p in submitters],
            key("created_at"): f"2026-11-2{index % 9}T10:00:00.000000-08:00",
            key("score"): None,
            key("status"): "processed",
        }
    (target / "submission_metadata.yml").write_text(yaml.safe_dump(metadata, sort_keys=False), encoding="utf-8")
    return target


def quiz_beside() -> dict[str, list[str]]:
    """{assignment: the quiz answer files a student hands in beside its notebook} for whatever the course holds
    (in a course with one nbgrader assignment per notebook, each quiz goes beside its lesson's notebook): each quiz
    once, the closest names paired first, one quiz per assignment while there are assignments without one (this
    course: quiz_attention_score.yaml beside attention_scores, quiz_attention.yaml beside single_head_attention)."""
    from difflib import SequenceMatcher

    from autograder.course import quiz_ids

    assignments, quizzes = list(paths.ASSIGNMENTS), list(quiz_ids())
    like = lambda quiz, assignment: SequenceMatcher(None, quiz, assignment).ratio()  # noqa: E731
    beside: dict[str, list[str]] = {a: [] for a in assignments}
    pairs = sorted(((like(q, a), q, a) for q in quizzes for a in assignments), key=lambda p: -p[0])
    placed: set[str] = set()
    for _, quiz, assignment in pairs:
        if quiz not in placed and not beside[assignment]:
            beside[assignment].append(f"quiz_{quiz}.yaml")
            placed.add(quiz)
    for quiz in (q for q in quizzes if q not in placed):
        beside[max(assignments, key=lambda a: like(quiz, a))].append(f"quiz_{quiz}.yaml")
    return beside


def nbgrader_database(path: Path, students: list[str], due: dict[str, str] | None = None,
                      extensions: set[tuple[str, str]] | dict = frozenset(), people: dict = PEOPLE) -> Path:
    """gradebook.db as nbgrader's SQLAlchemy models lay it out (nbgrader/api.py): here only the tables and
    columns the kit reads, `student` (id, first_name, last_name, email, lms_user_id), `assignment` (id,
    name, duedate: naive UTC) and `submitted_assignment` (an extension per (student, assignment): an
    Interval, which SQLAlchemy stores in SQLite as the time that long after 1970-01-01; `extensions` as a set
    gives one day each, as a dict {(student, assignment): hours})."""
    import sqlite3
    from contextlib import closing

    with closing(sqlite3.connect(path)) as db, db:
        db.execute("CREATE TABLE student (id VARCHAR(128) PRIMARY KEY, first_name VARCHAR(128), "
                   "last_name VARCHAR(128), email VARCHAR(128), lms_user_id VARCHAR(128))")
        db.execute("CREATE TABLE assignment (id VARCHAR(32) PRIMARY KEY, name VARCHAR(128), duedate DATETIME, "
                   "course_id VARCHAR(128))")
        db.execute("CREATE TABLE submitted_assignment (id VARCHAR(32) PRIMARY KEY, assignment_id VARCHAR(32), "
                   "student_id VARCHAR(128), timestamp DATETIME, extension DATETIME)")
        for student in students:
            sortable, user, _, email = people[student]
            last, first = (part.strip() for part in sortable.split(",", 1))
            db.execute("INSERT INTO student VALUES (?, ?, ?, ?, ?)", (student, first, last, email, str(user)))
        for index, (name, when) in enumerate((due or {}).items()):
            db.execute("INSERT INTO assignment VALUES (?, ?, ?, ?)", (f"a{index}", name, when, "default_course"))
        ids = {name: f"a{index}" for index, name in enumerate(due or {})}
        hours = extensions if isinstance(extensions, dict) else dict.fromkeys(extensions, 24)
        for index, (student, name) in enumerate(sorted(hours)):
            length = datetime(1970, 1, 1) + timedelta(hours=hours[student, name])
            db.execute("INSERT INTO submitted_assignment VALUES (?, ?, ?, NULL, ?)",
                       (f"s{index}", ids[name], student, length.strftime("%Y-%m-%d %H:%M:%S.%f")))
    return path


def nbgrader_course(target: Path, source: Path = paths.DEMO_CLASS_DIR, assignment: str = "attention",
                    per_assignment: dict[str, str] | None = None, database: bool = False,
                    due: dict[str, str] | None = None, extensions: set[tuple[str, str]] | dict = frozenset(),
                    people: dict = PEOPLE, stamps: dict[tuple[str, str], str] | None = None) -> Path:
    """A course root: submitted/<student>/<assignment>/... with timestamp.txt, beside nbgrader's own parts.
    `per_assignment` ({kit assignment: nbgrader assignment id}): one nbgrader assignment per notebook
    instead, each folder holding its notebook or .py, under whatever name the student gave it
    (`Attention_Scores (1).py` included), and the quiz files of its lesson (quiz_beside()).
    `database`: a gradebook.db that knows the students, with `due` dates ({assignment id: "YYYY-MM-DD
    HH:MM:SS"}, UTC) and `extensions` (else a file that is no database). The n-th student's timestamps say
    2026-11-30 10:0n UTC, unless `stamps` ({(student, assignment id): time}) says otherwise."""
    ids = list((per_assignment or {assignment: assignment}).values())
    for part in ("source", "release", "autograded", "feedback"):
        for name in ids:
            (target / part / name).mkdir(parents=True)
    (target / "source" / ids[0] / "attention_scores.ipynb").write_text("{}", encoding="utf-8")
    if database:
        target.mkdir(parents=True, exist_ok=True)
        nbgrader_database(target / "gradebook.db", sorted(p.name for p in source.iterdir() if p.is_dir()), due,
                          extensions, people)
    else:
        (target / "gradebook.db").write_bytes(b"SQLite format 3\x00")
    (target / "nbgrader_config.py").write_text("c = get_config()\n", encoding="utf-8")
    for index, folder in enumerate(sorted(p for p in source.iterdir() if p.is_dir())):
        stamp = f"2026-11-30 10:0{index % 10}:00.000000 UTC"
        if per_assignment is None:
            inner = target / "submitted" / folder.name / assignment
            shutil.copytree(folder, inner)
            (inner / "timestamp.txt").write_text(stamp, encoding="utf-8")
            continue
        beside = quiz_beside()
        for kit, name in per_assignment.items():
            inner = target / "submitted" / folder.name / name
            inner.mkdir(parents=True)
            for file in folder.iterdir():
                if assignment_of(file.name) == kit or file.name in beside[kit]:
                    shutil.copyfile(file, inner / file.name)
            (inner / "timestamp.txt").write_text((stamps or {}).get((folder.name, name), stamp), encoding="utf-8")
    return target


def assignment_of(file_name: str) -> str:
    """The kit assignment a student's file is, read as loosely as a teacher would: "Attention_Scores (1).py",
    "Copy of attention-scores.ipynb" and "attention_scores.py.txt" are attention_scores."""
    plain = re.sub(r"\s*\(\d+\)|^copy of\s+|(\.txt)+$", "", file_name.lower())
    return re.sub(r"[\s-]+", "_", os.path.splitext(plain)[0]).strip("_")


def zip_folder(folder: Path, archive: Path, top: str | None = None) -> Path:
    """Zip a folder's content, optionally under one top folder (as a "Compress" menu does)."""
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as out:
        for file in student_files(folder):
            name = file.relative_to(folder).as_posix()
            out.write(file, f"{top}/{name}" if top else name)
    return archive


def hostile_zip(archive: Path, kind: str) -> Path:
    """Zips that must be refused or defused: "traversal", "absolute", "bomb", "symlink", "many"."""
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as out:
        if kind == "traversal":
            out.writestr("../../escaped.py", "x = 1\n")
        elif kind == "absolute":
            out.writestr("/tmp/escaped.py", "x = 1\n")
        elif kind == "bomb":
            out.writestr("attention_scores.py", "#" * (30 << 20))  # 30 MiB of one byte: compresses ~1000x
        elif kind == "symlink":
            link = zipfile.ZipInfo("attention_scores.py")
            link.external_attr = (stat.S_IFLNK | 0o777) << 16
            out.writestr(link, "/etc/passwd")
            out.writestr("notes.txt", "hello\n")
        elif kind == "many":
            for index in range(600):
                out.writestr(f"f{index}.txt", "")
    return archive
