"""One folder per student (the folder name is the student id), or one zip per student beside them."""
from __future__ import annotations

import unicodedata
from dataclasses import replace
from pathlib import Path

from ..submissions import (Submission, discover, is_graded_name, not_graded_entries, read_submission, refused,
                           result_stem, submission_root, visible, walled)
from ..quiz_files import find_quiz_files
from . import ClassImport
from .zips import Refused, unpack


def zips_in(root: Path) -> list[Path]:
    try:
        return [Path(e.path) for e in visible(root)
                if e.name.lower().endswith(".zip") and e.is_file(follow_symlinks=False)]
    except OSError:
        return []


def has_graded_file(root: Path, assignments: list[str]) -> bool:
    try:
        return any(is_graded_name(e.name, assignments) or e.name in assignments for e in visible(root))
    except OSError:
        return False


def read_student(student_id: str, folder: Path, stage: Path, assignments: list[str],
                 stubs: dict[str, dict[str, str]]) -> Submission:
    """A student's folder; when it holds no assignment file but a zip, the newest zip's content."""
    root = submission_root(folder, assignments)
    archives = [] if has_graded_file(root, assignments) else zips_in(root)
    if not archives:
        return read_submission(student_id, folder, assignments, stubs)
    newest = max(archives, key=lambda p: (p.stat().st_mtime_ns, p.name))
    submission = read_zip(student_id, newest, stage, assignments, stubs, others=len(archives) - 1)
    beside, _ = find_quiz_files(folder, root, [])  # quiz files uploaded beside the zip (Canvas: one upload each)
    extra = {name: path for name, path in beside.items() if name not in submission.quiz_files}
    return replace(submission, quiz_files={**submission.quiz_files, **extra}) if extra else submission


def read_zip(student_id: str, archive: Path, stage: Path, assignments: list[str], stubs: dict[str, dict[str, str]],
             others: int = 0) -> Submission:
    target = stage / "zips" / result_stem(student_id)
    try:
        unpacked = unpack(archive, target)
    except Refused as why:
        return refused(student_id, assignments, f"{why} (nothing in it was graded)")
    submission = read_submission(student_id, unpacked.folder, assignments, stubs)
    note = f"Read from the zip {archive.name}."
    if others:
        note += f" {others} other zip(s) in the submission were not read (only the newest is)."
    if unpacked.skipped:
        note += f" Not unpacked: {', '.join(unpacked.skipped[:5])}."
    files = dict(submission.files)
    if assignments:
        first = files[assignments[0]]
        files[assignments[0]] = replace(first, notes=(note,) + first.notes)
    return Submission(student_id, files, submission.quiz_folder, submission.quiz_files)


def import_folders(submissions: Path, stage: Path, assignments: list[str],
                   stubs: dict[str, dict[str, str]]) -> ClassImport:
    """Today's layout: every folder is a student. A zip file beside the folders is the student named by
    the zip (unless a folder has that name too); inside a folder, a zip is read when no assignment file is."""
    def reader(student_id, folder, assignments, stubs):
        return read_student(student_id, folder, stage, assignments, stubs)

    by_id = {s.student_id: s for s in discover(submissions, assignments, stubs, reader)}
    skipped, zipped = [], 0
    for name, line in not_graded_entries(submissions):
        path = submissions / name
        stem = unicodedata.normalize("NFC", name[:-4]) if name.lower().endswith(".zip") else None
        if stem and not name.startswith(".") and path.is_file() and not path.is_symlink() and stem not in by_id:
            by_id[stem] = walled(stem, assignments, lambda: read_zip(stem, path, stage, assignments, stubs))
            zipped += 1
        else:
            skipped.append(line)
    students = sorted(by_id.values(), key=lambda s: s.student_id)
    extra = f" ({zipped} of them handed in as a zip beside the folders)" if zipped else ""
    return ClassImport("student folders", students, f"student folders: {len(students)} students{extra}",
                       skipped=skipped)
