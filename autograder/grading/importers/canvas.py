"""Canvas "Download submissions": one flat folder of `<name>_<user id>_<attachment id>_<file name>` files.

`<name>` is the student's sortable name ("Last, First") lower-cased without spaces or punctuation; a late
submission has `_late` right after it; a file uploaded again under the same name gets `-1`, `-2`... before
its extension (`attention_scores-1.py`). A student may upload a zip, which Canvas does not unpack.

Per student and file name (suffix removed) the latest upload is kept: the highest suffix, then the highest
attachment id (Canvas numbers attachments in upload order); which one, of how many, is kept as a note on the
student's arrival (feedback, gradebook, summary). The student id is `<name>`, or `<name>_<user
id>` when two Canvas users share a name; the user id is kept as the student's LMS user id, which is the `ID`
column of Canvas's gradebook export (the `--roster` join uses it).
"""
from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from ..submissions import result_stem, visible, walled
from ..skipped import UNREAD
from . import ClassImport, Identity
from .folders import read_student

NAME = re.compile(r"^(?P<name>[^\W_]+)(?P<late>_late)?_(?P<user>\d+)_(?P<attachment>\d+)_(?P<file>.+)$")
CANVAS_LIKE = re.compile(r"_\d+_\d+_.")  # a user id and an attachment id: a student's file, its name unread
RESUBMITTED = re.compile(r"^(?P<stem>.+?)-(?P<n>\d+)(?P<ext>\.[^.]+(\.txt)?)?$")


def number(digits: str) -> tuple[int, str]:
    """A run of digits as a sort key in numeric order, never as an int: Python will not read one of thousands
    of digits, and a file name may hold one."""
    digits = digits.lstrip("0")
    return len(digits), digits


@dataclass(frozen=True)
class Upload:
    path: Path
    name: str
    user: str
    attachment: tuple[int, str]  # number(): in numeric order
    late: bool
    file: str          # the name the student gave it, Canvas's `-N` removed
    version: tuple[int, str]     # Canvas's `-N` as number() (0 for the first upload)


def parse(path: Path) -> Upload | None:
    match = NAME.match(path.name)
    if not match or match["file"] in (".", ".."):
        return None
    file, version = match["file"], number("0")
    again = RESUBMITTED.match(file)
    if again:
        file, version = again["stem"] + (again["ext"] or ""), number(again["n"])
    return Upload(path, match["name"], match["user"], number(match["attachment"]), bool(match["late"]), file, version)


def looks_like(folder: Path) -> bool:
    """Most plain files at the top are named the Canvas way, and there is no student folder."""
    entries = visible(folder)
    files = [e for e in entries if e.is_file(follow_symlinks=False)]
    folders = [e for e in entries if e.is_dir(follow_symlinks=False)]
    named = [e for e in files if NAME.match(e.name)]
    return bool(named) and len(named) * 2 > len(files) and len(folders) <= len(named) // 10


def _place(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(source, target)  # same disk: no copy
    except OSError:
        shutil.copyfile(source, target)


def import_canvas(folder: Path, stage: Path, assignments: list[str], stubs: dict[str, dict[str, str]]) -> ClassImport:
    uploads, skipped = [], []
    for entry in visible(folder):
        upload = parse(Path(entry.path)) if entry.is_file(follow_symlinks=False) else None
        if upload is None and entry.is_file(follow_symlinks=False) and CANVAS_LIKE.search(entry.name):
            skipped.append(f"{UNREAD}{entry.name!r} carries Canvas's user and attachment ids, but not a student name "
                           "the way Canvas writes it (<name>_<user id>_<attachment id>_<file>); rename it so, or "
                           "grade it by hand")
        elif upload is None:
            what = "a folder" if entry.is_dir() else "a link" if entry.is_symlink() else "a file"
            skipped.append(f"skipped {entry.name!r}: {what} not named the way Canvas names a submission "
                           "(<name>_<user id>_<attachment id>_<file>)")
        else:
            uploads.append(upload)
    names: dict[str, set[str]] = {}
    for upload in uploads:
        names.setdefault(upload.name, set()).add(upload.user)
    by_user: dict[str, list[Upload]] = {}
    for upload in uploads:
        by_user.setdefault(upload.user, []).append(upload)
    submissions, identities, resubmitted, late = [], {}, 0, 0
    for user, mine in sorted(by_user.items()):
        name = mine[0].name
        student_id = name if len(names[name]) == 1 else f"{name}_{user}"
        latest: dict[str, Upload] = {}
        for upload in sorted(mine, key=lambda u: (u.version, u.attachment)):
            latest[upload.file] = upload
        resubmitted += len(latest) < len(mine)
        times = {file: sum(u.file == file for u in mine) for file in latest}
        graded = tuple(f"{file} uploaded {count} times: the latest ({latest[file].path.name.split('_', 3)[3]}) was graded"
                       for file, count in times.items() if count > 1)
        is_late = any(u.late for u in latest.values())
        late += is_late
        target = stage / "canvas" / result_stem(student_id)

        def read(target=target, latest=latest, student_id=student_id):
            for file, upload in latest.items():
                _place(upload.path, target / file)
            return read_student(student_id, target, stage, assignments, stubs)
        submissions.append(walled(student_id, assignments, read))
        identities[student_id] = Identity(lms_user_id=user, late=is_late,  # <name> is the student id already
                                          notes=graded)
    students = len(submissions)
    summary = (f"Canvas download: {len(uploads)} files from {students} students; latest resubmission kept for "
               f"{resubmitted}" + (f"; {late} submitted late" if late else ""))
    return ClassImport("Canvas download", sorted(submissions, key=lambda s: s.student_id), summary, identities,
                       skipped)
