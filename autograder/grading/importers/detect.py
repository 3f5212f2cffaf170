"""Which layout SUBMISSIONS is in, and reading it: a class zip is unpacked into the staging folder first."""
from __future__ import annotations

import shutil
from pathlib import Path

from ... import paths
from . import ClassImport
from . import canvas, gradescope, nbgrader
from .folders import has_graded_file, import_folders
from .zips import CLASS_ZIP, Refused, unpack


class NotAClass(ValueError):
    """SUBMISSIONS cannot be read as a class at all; str() is the sentence to show."""


def import_class(submissions: Path, stage: Path, assignments: list[str],
                 stubs: dict[str, dict[str, str]]) -> ClassImport:
    """Read SUBMISSIONS (a folder or a class zip) in whichever layout it is in. `stage` is emptied and
    holds the files that had to be unpacked or rearranged; keep it until grading is over."""
    shutil.rmtree(stage, ignore_errors=True)
    stage.mkdir(parents=True)
    origin = ""
    if submissions.is_file():
        if not submissions.name.lower().endswith(".zip"):
            raise NotAClass(f"{submissions} is a file, not a folder of submissions or a zip of one")
        try:
            unpacked = unpack(submissions, stage / "class", CLASS_ZIP)
        except Refused as why:
            raise NotAClass(f"the class zip was not read: {why}") from None
        origin = f" (unpacked from {submissions.name})"
        submissions = single_folder(unpacked.folder)
    for looks_like, read in ((lambda f: gradescope.export_root(f) is not None, gradescope.import_gradescope),
                             (nbgrader.looks_like, nbgrader.import_nbgrader),
                             (canvas.looks_like, canvas.import_canvas)):
        if looks_like(submissions):
            found = read(submissions, stage, assignments, stubs)
            break
    else:
        found = import_folders(submissions, stage, assignments, stubs)
    found.summary += origin
    return found


def single_folder(folder: Path) -> Path:
    """A zip of a class often holds one folder named after the class: read inside it."""
    entries = [p for p in folder.iterdir() if not p.name.startswith(".") and p.name != "__MACOSX"]
    if len(entries) == 1 and entries[0].is_dir() and not entries[0].is_symlink() \
            and not has_graded_file(entries[0], list(paths.ASSIGNMENTS)):  # not one student's folder
        return entries[0]
    return folder
