"""Platform-shaped downloads of a class, built in code from a folder-per-student class (the demo class by
default), named the way each platform names things (tests/test_importers.py; facts in the README's
"Submissions" section). Nothing here is committed as a binary: every zip is written on the fly."""
from __future__ import annotations

import os
import re
import shutil
import stat
import zipfile
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


def canvas_name(sortable: str) -> str:
    """"Lee, Barbara" -> "leebarbara": lower-cased, without spaces or punctuation."""
    return re.sub(r"[\W_]+", "", sortable.lower())


def display_name(sortable: str) -> str:
    last, first = (part.strip() for part in sortable.split(",", 1))
    return f"{first} {last}"


def student_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file())


def canvas_download(target: Path, source: Path = paths.DEMO_CLASS_DIR, late: set[str] = frozenset(),
                    resubmitted: dict[str, dict[str, str]] | None = None) -> Path:
    """Canvas's flat folder. `resubmitted` maps a student to {file name: an OLDER version's text}: the older
    upload keeps the plain name and a smaller attachment id, the demo's file becomes `<stem>-1<ext>`."""
    target.mkdir(parents=True, exist_ok=True)
    attachment = 208490000
    for folder in sorted(p for p in source.iterdir() if p.is_dir()):
        sortable, user, _, _ = PEOPLE[folder.name]
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
                      groups: dict[str, list[str]] | None = None) -> Path:
    """`submission_<id>/` folders and submission_metadata.yml. `groups` maps a student to group partners
    (extra submitters of the same submission)."""
    target.mkdir(parents=True, exist_ok=True)
    key = (lambda k: f":{k}") if ruby_keys else (lambda k: k)
    metadata = {}
    for index, folder in enumerate(sorted(p for p in source.iterdir() if p.is_dir())):
        submission = f"submission_{251000 + index}"
        shutil.copytree(folder, target / submission)
        people = [folder.name, *(groups or {}).get(folder.name, [])]
        metadata[submission] = {
            key("submitters"): [{key("name"): display_name(PEOPLE[p][0]), key("sid"): PEOPLE[p][2],
                                 key("email"): PEOPLE[p][3]} for p in people],
            key("created_at"): f"2026-11-2{index % 9}T10:00:00.000000-08:00",
            key("score"): None,
            key("status"): "processed",
        }
    (target / "submission_metadata.yml").write_text(yaml.safe_dump(metadata, sort_keys=False), encoding="utf-8")
    return target


# Which lesson's quiz goes with which assignment: in a course with one nbgrader assignment per notebook, a
# student hands each quiz in beside its notebook.
QUIZ_BESIDE = {"attention_scores": "quiz_attention_score.yaml", "single_head_attention": "quiz_attention.yaml"}


def nbgrader_database(path: Path, students: list[str], due: dict[str, str] | None = None,
                      extensions: set[tuple[str, str]] = frozenset()) -> Path:
    """gradebook.db as nbgrader's SQLAlchemy models lay it out (nbgrader/api.py): here only the tables and
    columns the kit reads, `student` (id, first_name, last_name, email, lms_user_id), `assignment` (id,
    name, duedate: naive UTC) and `submitted_assignment` (an extension per (student, assignment))."""
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
            sortable, user, _, email = PEOPLE[student]
            last, first = (part.strip() for part in sortable.split(",", 1))
            db.execute("INSERT INTO student VALUES (?, ?, ?, ?, ?)", (student, first, last, email, str(user)))
        for index, (name, when) in enumerate((due or {}).items()):
            db.execute("INSERT INTO assignment VALUES (?, ?, ?, ?)", (f"a{index}", name, when, "default_course"))
        ids = {name: f"a{index}" for index, name in enumerate(due or {})}
        for index, (student, name) in enumerate(sorted(extensions)):
            db.execute("INSERT INTO submitted_assignment VALUES (?, ?, ?, NULL, ?)",
                       (f"s{index}", ids[name], student, "1970-01-02 00:00:00.000000"))
    return path


def nbgrader_course(target: Path, source: Path = paths.DEMO_CLASS_DIR, assignment: str = "attention",
                    per_assignment: dict[str, str] | None = None, database: bool = False,
                    due: dict[str, str] | None = None, extensions: set[tuple[str, str]] = frozenset()) -> Path:
    """A course root: submitted/<student>/<assignment>/... with timestamp.txt, beside nbgrader's own parts.
    `per_assignment` ({kit assignment: nbgrader assignment id}): one nbgrader assignment per notebook
    instead, each folder holding its notebook (or .py) and the quiz file of its lesson (QUIZ_BESIDE).
    `database`: a gradebook.db that knows the students, with `due` dates ({assignment id: "YYYY-MM-DD
    HH:MM:SS"}, UTC) and `extensions` (else a file that is no database). The n-th student's timestamps say
    2026-11-30 10:0n UTC."""
    ids = list((per_assignment or {assignment: assignment}).values())
    for part in ("source", "release", "autograded", "feedback"):
        for name in ids:
            (target / part / name).mkdir(parents=True)
    (target / "source" / ids[0] / "attention_scores.ipynb").write_text("{}", encoding="utf-8")
    if database:
        target.mkdir(parents=True, exist_ok=True)
        nbgrader_database(target / "gradebook.db", sorted(p.name for p in source.iterdir() if p.is_dir()), due,
                          extensions)
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
        for kit, name in per_assignment.items():
            inner = target / "submitted" / folder.name / name
            inner.mkdir(parents=True)
            for file in folder.iterdir():
                if file.stem == kit or file.name == QUIZ_BESIDE[kit]:
                    shutil.copyfile(file, inner / file.name)
            (inner / "timestamp.txt").write_text(stamp, encoding="utf-8")
    return target


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
