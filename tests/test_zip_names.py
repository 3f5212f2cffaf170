"""Zipped downloads with non-ASCII names read exactly as the folder they were zipped from, whatever wrote the
zip: Python (UTF-8 names, the zip's UTF-8 flag set), Info-ZIP's `zip` of Linux and macOS (UTF-8 names, flag
clear) or a legacy tool (CP437 names, flag clear). Every platform's layout, with accented student names and
a class folder named with accents."""
from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autograder import paths
from autograder.grading.importers import import_class
from autograder.grading.importers.zips import unpack
from autograder.grading.runner import shipped_stubs
from tests import platforms

ASSIGNMENTS = list(paths.ASSIGNMENTS)
STUBS = shipped_stubs()
TOP = "Übung 3 Aufmerksamkeit"
MODES = ("flagged", "info-zip", "cp437")


class _Named(zipfile.ZipInfo):
    """A member whose name is written as `mode` says, not as Python's zipfile would."""
    mode = "flagged"

    def _encodeFilenameFlags(self):  # zipfile's own hook for the name's bytes and flag bits
        if self.mode == "info-zip":
            return self.filename.encode("utf-8"), self.flag_bits & ~0x800
        if self.mode == "cp437":
            try:
                return self.filename.encode("cp437"), self.flag_bits & ~0x800
            except UnicodeEncodeError:
                pass
        return super()._encodeFilenameFlags()


def zip_as(folder: Path, archive: Path, mode: str, top: str | None = TOP) -> Path:
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as out:
        for file in sorted(folder.rglob("*")):  # folders too, empty ones included, as `zip -r` does
            name = file.relative_to(folder).as_posix() + ("/" if file.is_dir() else "")
            info = _Named(f"{top}/{name}" if top else name)
            info.mode, info.compress_type = mode, zipfile.ZIP_DEFLATED
            out.writestr(info, b"" if file.is_dir() else file.read_bytes())
    with zipfile.ZipFile(archive) as check:  # the zip holds what the mode says
        flags = {i.flag_bits & 0x800 for i in check.infolist() if not i.filename.isascii()}
        # cp437: names CP437 cannot spell ("Søren") fall back to flagged UTF-8, as such writers do
        assert flags == {0x800} if mode == "flagged" else 0 in flags if mode == "cp437" else flags == {0}
    return archive


def accented_class(tmp_path: Path, size: int = 9) -> tuple[Path, dict]:
    """class_of(size) with each generated student's folder named by their Canvas name ("leezoë")."""
    source, people = platforms.class_of(tmp_path / "plain", size)
    renamed = {}
    for folder, person in people.items():
        name = folder if folder in platforms.PEOPLE else platforms.canvas_name(person[0])
        if name in renamed:  # the two students of one name
            name += "2"
        (source / folder).rename(source / name)
        renamed[name] = person
    assert any(not name.isascii() for name in renamed)
    return source, renamed


def layout(kind: str, tmp_path: Path, source: Path, people: dict) -> Path:
    if kind == "canvas":
        return platforms.canvas_download(tmp_path / "canvas", source, late={next(iter(people))}, people=people)
    if kind == "gradescope":
        return platforms.gradescope_export(tmp_path / "gradescope", source, people=people)
    if kind == "nbgrader":
        return platforms.nbgrader_course(tmp_path / "nbgrader", source, people=people)
    return source


def seen(found) -> dict:
    return {s.student_id: ({a: (f.cells, f.problem) for a, f in s.files.items()}, found.identities.get(s.student_id))
            for s in found.submissions}


@pytest.fixture(scope="module")
def accented(tmp_path_factory):
    return accented_class(tmp_path_factory.mktemp("accented"))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", ["canvas", "gradescope", "nbgrader", "plain"])
def test_a_zipped_download_reads_as_its_folder(tmp_path, accented, kind, mode):
    source, people = accented
    folder = layout(kind, tmp_path, source, people)
    as_folder = import_class(folder, tmp_path / "stage1", ASSIGNMENTS, STUBS)
    as_zip = import_class(zip_as(folder, tmp_path / "submissions.zip", mode), tmp_path / "stage2", ASSIGNMENTS,
                          STUBS)
    assert as_zip.layout == as_folder.layout
    assert len(as_zip.submissions) == len(people)
    assert seen(as_zip) == seen(as_folder)
    assert as_zip.skipped == as_folder.skipped == []
    # the course's empty folders (nbgrader's release/, feedback/) are not unpacked, so not named: only students
    assert as_zip.summary.split(" (")[0] == as_folder.summary.split(" (")[0]
    assert as_zip.summary.endswith(" (unpacked from submissions.zip)")


NAME = st.text(st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="/\\:"), min_size=1,
               max_size=12).filter(lambda n: n.strip(".") and not n.startswith(".") and n == n.strip())


@settings(max_examples=60)
@given(st.lists(NAME, min_size=1, max_size=4, unique_by=str.casefold), st.sampled_from(MODES))
def test_every_name_comes_out_as_written(tmp_path_factory, names, mode):
    """UTF-8 bytes are read as UTF-8 with or without the flag; CP437 bytes that are not UTF-8 as CP437."""
    tmp = tmp_path_factory.mktemp("names")
    archive = tmp / "work.zip"
    written = {}
    with zipfile.ZipFile(archive, "w") as out:
        for index, name in enumerate(names):
            info = _Named(f"{index}{name}")
            info.mode = mode
            raw, flags = info._encodeFilenameFlags()
            legacy = mode == "cp437" and not flags & 0x800
            if legacy and not raw.isascii():
                try:
                    raw.decode("utf-8")
                    continue  # CP437 bytes that are also UTF-8: no reader can tell; unzip reads UTF-8 too
                except UnicodeDecodeError:
                    pass
            out.writestr(info, name)
            written[info.filename] = name
    unpacked = unpack(archive, tmp / "out")
    assert {p.name: p.read_text(encoding="utf-8") for p in unpacked.folder.iterdir()} == written


def test_a_canvas_file_whose_name_is_unread_is_counted_as_not_graded(tmp_path):
    """A file carrying Canvas's ids whose student name part cannot be read (a name garbled by another tool)
    is counted where the teacher reads what could not be graded, not filed as no student's submission."""
    from autograder.reporting.class_report import problem_section
    from autograder.reporting.summary import attention_lines, full_table

    download = platforms.canvas_download(tmp_path / "canvas")
    garbled = "leezo├½_341000_208499999_attention_scores.py"
    (download / garbled).write_text("x = 1\n", encoding="utf-8")
    (download / "notes.txt").write_text("from the teacher\n", encoding="utf-8")
    found = import_class(download, tmp_path / "stage", ASSIGNMENTS, STUBS)
    assert len(found.submissions) == 6
    unread = [s for s in found.skipped if garbled in s]
    assert len(unread) == 1 and unread[0].startswith("could not be graded: ")
    closing = "\n".join(attention_lines([], found.skipped, "summary.txt"))
    assert "Could not be graded: 1 file(s) named like a student's submission" in closing
    assert "Not a student's submission, so not graded: 1 entry" in closing
    table = full_table([], found.skipped)
    named, junk = table.split("Not a student's submission, so not graded:")
    assert "Named like a student's submission, but not read, so not graded:" in named and garbled in named
    assert "notes.txt" in junk and garbled not in junk
    html = problem_section([], found.skipped)
    named, junk = html.split("<h3>Not a student's submission, so not graded</h3>")
    assert "<h3>Named like a student's submission, but not read, so not graded</h3>" in named
    assert "208499999_attention_scores.py" in named and "notes.txt" in junk and "208499999" not in junk


def test_the_roster_line_of_students_without_a_submission_points_at_unread_files(tmp_path, capsys):
    from types import SimpleNamespace

    from autograder.cli import report_roster

    joined = SimpleNamespace(matched=[], unmatched=[], ambiguous={}, without_submission=[SimpleNamespace(name="Zoë Lee")])
    report_roster(joined, tmp_path, ["could not be graded: 'leezo├½_341000_2_a.py' ...", "skipped 'notes.txt': ..."])
    said = " ".join(capsys.readouterr().err.split())
    assert ('roster: 1 Canvas student(s) without a submission: "Zoë Lee"; 1 file(s) named like a submission could '
            "not be read (listed above): some may be theirs") in said
    report_roster(joined, tmp_path, ["skipped 'notes.txt': ..."])
    assert "could not be read" not in capsys.readouterr().err
