"""Find each student's files and turn them into source text, in the trusted parent.

Nothing here executes student code: a notebook is parsed as JSON and its code cells are taken
as text, with IPython magics and shell escapes commented out (they mean nothing to the grader).

Where a student's files may sit (nothing else is looked at, and no link is followed out of the
student's folder):
- `<student>/<assignment>.py` or `.ipynb` (a flat folder);
- `<student>/<assignment>/<assignment>.py` or `.ipynb` (the handout's layout, one folder per assignment);
- either of the above inside the single sub-folder of a student folder that holds no assignment file
  itself (a zip with a top folder, or the whole unzipped handout folder).
Files found below the top are graded exactly as at the top, with a note saying where they were.
"""
from __future__ import annotations

import ast
import errno
import hashlib
import io
import json
import os
import re
import sys
import tokenize
import unicodedata
import warnings
from dataclasses import dataclass, field, replace
from pathlib import Path


from ..bounded import TooComplex, json_bounds
from .definitions import split_definitions
from .names import KINDS, kind_of, rename_note
from .quiz_files import QUIZ_ANSWERS, QUIZ_FOLDER, find_quiz_files

MAX_PY_BYTES = 1 << 20        # a .py twin is a few KB; 1 MiB is generous
MAX_NOTEBOOK_BYTES = 20 << 20  # notebooks carry outputs (plots), so allow more
MAX_CODE_CHARS = 1 << 20      # code of one file, however it came (a notebook's cells added up)
KIT_CELL_TAGS = {"kit-init", "kit-check", "kit-explore"}  # generated cells that the grader skips
SAFE_NAME = re.compile(r"^[\w][\w .\-]{0,99}$")
SPLIT = "Syntax error: "  # a note's prefix; the instructor's attention list looks for it


@dataclass(frozen=True)
class SourceFile:
    """One assignment file of one student: its code as cells of text, or why there is none."""
    assignment: str
    filename: str | None
    cells: tuple[str, ...] = ()
    problem: str | None = None
    notes: tuple[str, ...] = ()
    digest: str = ""

    @property
    def text(self) -> str:
        return "\n\n".join(self.cells)


@dataclass(frozen=True)
class Submission:
    student_id: str
    files: dict[str, SourceFile] = field(default_factory=dict)
    quiz_folder: str | None = None  # where quiz answer files are expected; None: nothing is read
    quiz_files: dict[str, str] = field(default_factory=dict)  # answer file name -> where it was found

    @property
    def fingerprint(self) -> str:
        parts = [f"{name}:{f.filename}:{f.digest}:{f.problem}" for name, f in sorted(self.files.items())]
        return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def result_stem(student_id: str) -> str:
    """A file name for a student's outputs: the id itself when it is safe, else a slug plus a hash."""
    if SAFE_NAME.match(student_id) and student_id not in (".", ".."):
        return student_id
    slug = re.sub(r"[^\w.\-]+", "_", student_id).strip("._-")[:40] or "student"  # never "-..." (read as an option)
    return f"{slug}-{hashlib.sha256(student_id.encode('utf-8', 'surrogatepass')).hexdigest()[:8]}"


def strip_magics(source: str) -> tuple[str, bool]:
    """Comment out `%magic`, `%%cell magic` and `!shell` lines; say whether any were found."""
    lines, found = [], False
    for line in source.splitlines():
        if line.lstrip().startswith(("%", "!")):
            lines.append("# [removed by the grader] " + line)
            found = True
        else:
            lines.append(line)
    return "\n".join(lines), found


def notebook_cells(raw: bytes, handout: bool = False) -> tuple[list[str], list[str]]:
    """The code cells' sources (kit cells left out, magics commented out) and notes about what was changed.
    `handout`: the kit's own notebook, written by nbformat as v4 (authoring/render.py), read as the plain JSON
    it is; a student's notebook goes through nbformat, which upgrades old versions and repairs what it can."""
    if handout:
        raw_cells = json.loads(raw.decode("utf-8"))["cells"]
    else:
        import nbformat  # a tenth of a second (jsonschema): only a class that hands in notebooks pays it

        text = raw.decode(json.detect_encoding(raw))  # UTF-8 (a BOM allowed), or UTF-16/32 as JSON may be
        too_complex = json_bounds(text)  # before any recursive parser sees it
        if too_complex:
            raise TooComplex(too_complex)
        with warnings.catch_warnings():  # students' notebooks are often slightly off-schema (missing ids)
            warnings.simplefilter("ignore")
            raw_cells = nbformat.reads(text, as_version=4).cells
    cells, notes = [], []
    for cell in raw_cells:
        if cell.get("cell_type") != "code":
            continue
        metadata = cell.get("metadata")
        tags = metadata.get("tags") if isinstance(metadata, dict) else None
        if isinstance(tags, list) and KIT_CELL_TAGS & {t for t in tags if isinstance(t, str)}:
            continue
        text = cell.get("source", "")
        source, had_magic = strip_magics("".join(text) if isinstance(text, list) else text)
        if had_magic:
            notes.append("IPython magics and shell escapes (`%...`, `!...`) are ignored when grading.")
        cells.append(source)
    return cells, sorted(set(notes))


def python_text(raw: bytes) -> str:
    """A .py file's text decoded as Python itself reads it: UTF-8, or what its BOM or coding line declares
    (PEP 263), so a valid Latin-1 file is graded like its UTF-8 twin."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
    return raw.decode(encoding).removeprefix("\ufeff")


def read_file(folder: Path, path: Path, assignment: str, kind: str | None = None) -> SourceFile:
    name = path.name
    kind = kind or ("ipynb" if name.endswith(".ipynb") else "py")
    try:
        resolved = path.resolve(strict=True)
    except (OSError, RuntimeError):
        return SourceFile(assignment, name, problem=f"{name} is a broken link")
    if not resolved.is_relative_to(folder.resolve()):
        return SourceFile(assignment, name, problem=f"{name} is a link pointing outside your submission")
    if not resolved.is_file():
        return SourceFile(assignment, name, problem=f"{name} is not a regular file")
    limit = MAX_NOTEBOOK_BYTES if kind == "ipynb" else MAX_PY_BYTES
    if resolved.stat().st_size > limit:
        return SourceFile(assignment, name, problem=f"{name} is larger than {limit >> 20} MiB")
    try:
        raw = resolved.read_bytes()
    except OSError as exc:
        return SourceFile(assignment, name, problem=f"{name} could not be read ({exc.__class__.__name__})")
    digest = hashlib.sha256(raw).hexdigest()
    try:
        if kind == "ipynb":
            cells, notes = notebook_cells(raw)
        else:
            cells, notes = [python_text(raw)], []
    except (UnicodeDecodeError, SyntaxError, LookupError):
        declared = ("UTF-8: save it again from Jupyter" if kind == "ipynb"
                    else "UTF-8 unless a coding line says otherwise")
        return SourceFile(assignment, name, problem=f"{name} is not text in the encoding it declares ({declared})",
                          digest=digest)
    except TooComplex as exc:
        return SourceFile(assignment, name, problem=f"{name} holds {exc}, so it was not read", digest=digest)
    except Exception as exc:  # noqa: BLE001 - nbformat raises many kinds (jsonschema's ValidationError...);
        # whatever one student's file does, it must become that file's problem, not stop the class
        return SourceFile(assignment, name, problem=f"{name} is not a readable notebook ({exc.__class__.__name__})",
                          digest=digest)
    if "\x00" in "".join(cells):
        return SourceFile(assignment, name, problem=f"{name} contains binary data, not Python code", digest=digest)
    cells, mended = mend_surrogates(cells)
    if mended:
        notes.append(f"{name} held {mended} broken character(s) (lone UTF-16 surrogates, which Python cannot "
                     "compile); each was replaced by U+FFFD (\ufffd) when grading.")
    if sum(map(len, cells)) > MAX_CODE_CHARS:
        return SourceFile(assignment, name, problem=f"{name} holds more than {MAX_CODE_CHARS >> 20} MiB of code",
                          digest=digest)
    trouble, error = parse_check("\n\n".join(cells))
    if trouble:
        return SourceFile(assignment, name, problem=f"{name} cannot be parsed by Python ({trouble})", digest=digest)
    if kind == "py" and error is not None:
        cells, split = python_cells(name, cells[0], error)
        notes = [*notes, *split]
    return SourceFile(assignment, name, tuple(cells), notes=tuple(notes), digest=digest)


def mend_surrogates(cells: list[str]) -> tuple[list[str], int]:
    """Cells with every lone surrogate (a notebook's JSON escape, a UTF-7 file: never text Python can compile)
    replaced by U+FFFD; how many there were."""
    found = sum(len(_SURROGATES.findall(cell)) for cell in cells)
    return ([_SURROGATES.sub("\ufffd", cell) for cell in cells] if found else cells), found


_SURROGATES = re.compile("[\ud800-\udfff]")


def python_cells(name: str, text: str, error: SyntaxError) -> tuple[list[str], list[str]]:
    """A .py file that Python cannot parse is run definition by definition, like a notebook's cells, so
    that a syntax error costs only the definition it is in."""
    line = f"line {error.lineno}: " if error.lineno else ""
    return split_definitions(text), [f"{SPLIT}{name} {line}{error.msg}. Python cannot run the file as a whole, "
                                     "so it was graded definition by definition: only the broken part loses "
                                     "points."]


def unparseable(text: str) -> str | None:
    """Why Python's parser gives up on this code (nesting too deep for it, or memory), else None."""
    return parse_check(text)[0]


def parse_check(text: str) -> tuple[str | None, SyntaxError | None]:
    """(why Python's parser gives up on this code: nesting too deep for it, or memory; its syntax error).

    A syntax error is not a reason to give up: a .py is then split into definitions (python_cells) and
    the sandbox reports the error with the student's line. Parsing happens with less stack than the
    graders will have, so code that passes here parses there too."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit - 400, 200))
    try:
        ast.parse(text)
    except SyntaxError as error:
        return None, error
    except ValueError:
        return None, None
    except RecursionError:
        return "its expressions are nested too deeply", None
    except MemoryError:
        return "it needs too much memory to parse", None
    finally:
        sys.setrecursionlimit(limit)
    return None, None


def not_handed_in_problem(assignment: str) -> str:
    return f"no {assignment}.py or {assignment}.ipynb in the submission"


def not_handed_in(problem: str) -> str | None:
    """The assignment a problem says was not handed in (no file of it anywhere), or None: any other problem is
    a file handed in that could not be graded."""
    found = re.fullmatch(r"no (\S+)\.py or \1\.ipynb in the submission", problem)
    return found.group(1) if found else None


def choose(folder: Path, root: Path, assignment: str, stub_text: dict[str, str]) -> tuple[SourceFile, str | None]:
    """Pick the student's file for one assignment in `root` (the student's `folder` or its one sub-folder),
    in `root/<assignment>/`, or else in any one sub-folder of `root` (nbgrader's `<student>/<assignment
    id>/`, whatever the course named its assignments; the newest copy when several hold one). Returns it
    with where it was found when that is not the top. With both `.py` and `.ipynb` present, the one that
    differs from the shipped stub wins; if both were edited, the notebook wins."""
    present: list[tuple[Path, str]] = []
    for place in (root, root / assignment):
        if place != root and (place.is_symlink() or not place.is_dir()):
            continue
        present = files_in(place, assignment)
        if present:
            break
    also: list[str] = []
    if not present:
        present, also = in_other_folders(root, assignment)
    if not present:
        return SourceFile(assignment, None, problem=not_handed_in_problem(assignment)), None
    where = present[0][0].parent.relative_to(folder).as_posix()
    where = None if where == "." else where
    read = [read_file(folder, p, assignment, kind) for p, kind in present]
    read = [f if p.name == f"{assignment}.{kind}" else replace(f, notes=(rename_note(p.name, assignment, kind),)
                                                                + f.notes)
            for f, (p, kind) in zip(read, present)]
    copies = (f"Copies of {assignment} were found in several folders ({', '.join(also)}); graded the newest, in "
              f"{where}.",) if also else ()
    if len(read) == 1:
        return replace(read[0], notes=read[0].notes + copies), where
    usable = [f for f in read if f.problem is None] or read
    kinds = {f.filename: kind for f, (_, kind) in zip(read, present)}
    edited = [f for f in usable if normalize(f.text) != normalize(stub_text.get(kinds[f.filename], ""))]
    chosen = (edited or usable)[0]
    note = (f"Both {assignment}.py and {assignment}.ipynb were submitted; graded {chosen.filename} "
            "(the one changed from the handout; the notebook when both were).")
    return replace(chosen, notes=chosen.notes + (note,) + copies), where


def files_in(place: Path, assignment: str) -> list[tuple[Path, str]]:
    """The assignment's files in one folder: the exact names, else the near misses."""
    return [(p, kind) for p, kind in ((place / f"{assignment}.{kind}", kind) for kind in KINDS)
            if p.exists() or p.is_symlink()] or near_misses(place, assignment)


def in_other_folders(root: Path, assignment: str) -> tuple[list[tuple[Path, str]], list[str]]:
    """The assignment's files in the sub-folders of `root` (not links, not the handout's quizzes/): from
    the one folder holding them, or the newest copy; with the other folders that held one."""
    found = []
    try:
        folders = [Path(e.path) for e in visible(root) if e.is_dir(follow_symlinks=False) and e.name != QUIZ_FOLDER]
    except OSError:
        return [], []
    for place in folders:
        present = files_in(place, assignment)
        if present:
            found.append((max(p.lstat().st_mtime_ns for p, _ in present), place.name, present))
    if not found:
        return [], []
    found.sort(key=lambda entry: (entry[0], entry[1]), reverse=True)
    return found[0][2], [name for _, name, _ in found[1:]]


def near_misses(place: Path, assignment: str) -> list[tuple[Path, str]]:
    """The assignment's files under a near-miss name (names.py): per kind the newest, notebook first."""
    found: dict[str, list[Path]] = {}
    try:
        for entry in visible(place):
            kind = kind_of(entry.name, assignment)
            if kind and (entry.is_file() or entry.is_symlink()):
                found.setdefault(kind, []).append(Path(entry.path))
    except OSError:
        return []

    def newest(paths: list[Path]) -> Path:
        return max(paths, key=lambda p: (p.lstat().st_mtime_ns, p.name))
    return [(newest(found[kind]), kind) for kind in KINDS if kind in found]


def normalize(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip().splitlines() if line.strip())


IGNORED_NAMES = {"__pycache__", "__MACOSX", "Thumbs.db", "desktop.ini", "timestamp.txt"}  # nbgrader's


def visible(folder: Path) -> list[os.DirEntry]:
    """Entries of a folder that a person handed in (hidden files and OS clutter left out)."""
    with os.scandir(folder) as entries:
        return sorted((e for e in entries if not e.name.startswith(".") and e.name not in IGNORED_NAMES),
                      key=lambda e: e.name)


def graded_names(assignments: list[str]) -> set[str]:
    return {f"{a}{ext}" for a in assignments for ext in (".py", ".ipynb")}


def is_graded_name(name: str, assignments: list[str]) -> bool:
    return name in graded_names(assignments) or any(kind_of(name, a) for a in assignments)


def submission_root(folder: Path, assignments: list[str]) -> Path:
    """The folder itself, or its single sub-folder when the files were handed in one folder down: the
    folder holds no assignment file, no assignment folder and no quiz file, and exactly one real (not
    linked) sub-folder."""
    entries = visible(folder)
    wanted = graded_names(assignments) | set(assignments) | {QUIZ_FOLDER}

    def wanted_here(entry: os.DirEntry) -> bool:
        return entry.name in wanted or bool(QUIZ_ANSWERS.match(entry.name)) or is_graded_name(entry.name, assignments)
    if any(map(wanted_here, entries)):
        return folder
    folders = [e for e in entries if e.is_dir(follow_symlinks=False)]
    if len(folders) == 1 and any(map(wanted_here, visible(Path(folders[0].path)))):
        return Path(folders[0].path)
    return folder


def quiz_folder(root: Path) -> Path:
    """Quiz answer files sit beside the code, or in the handout's quizzes/ folder."""
    inner = root / QUIZ_FOLDER
    if not any(QUIZ_ANSWERS.match(p.name) for p in root.iterdir()) and inner.is_dir() and not inner.is_symlink():
        return inner
    return root


def extra_files(root: Path, assignments: list[str], used: set[str] = frozenset()) -> list[str]:
    """Names in a student's folder that nothing grades (hidden files, caches and the folders the graded
    files came from left out). A file or folder of another of the course's assignments, one not being graded
    now (not released yet), is no stray file either: it is left alone, unmentioned."""
    try:
        names = [e.name for e in visible(root)]
    except OSError:
        return []
    from .. import paths  # noqa: PLC0415 - the course's assignments, discovered once
    from ..course import named_in_order  # noqa: PLC0415

    course = set(paths.ASSIGNMENTS) | set(named_in_order())   # a release's zip holds only its parts
    known = graded_names([*assignments, *course]) | course
    return [n for n in names if n not in known and n not in used and not QUIZ_ANSWERS.match(n)]


def refused(student_id: str, assignments: list[str], why: str) -> Submission:
    """A row for a folder that is not graded at all: every assignment carries the reason."""
    return Submission(student_id, {a: SourceFile(a, None, problem=why) for a in assignments})


def walled(student_id: str, assignments: list[str], read) -> Submission:
    """`read()` one student's submission behind the per-student wall: whatever reading that student's files
    does (a folder that cannot be read, a failure of the kit's own readers), it is that student's row, with
    the reason, never the class's. A full disk is everyone's problem: it stops grading (DiskFull)."""
    try:
        return read()
    except OSError as exc:
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            raise
        return refused(student_id, assignments, f"the submission folder could not be read "
                       f"({exc.strerror or type(exc).__name__})")
    except Exception as exc:  # noqa: BLE001 - the per-student wall
        return refused(student_id, assignments, f"reading the submission failed inside the grading kit "
                       f"({type(exc).__name__}), so nothing was graded; your instructor has been told")


def student_ids(names: list[str]) -> dict[str, str]:
    """folder name -> student id: the name in Unicode NFC (zips from macOS use NFD). Two folders whose
    names differ only in Unicode spelling would share one id: the later ones get a marked id."""
    ids, taken = {}, set()
    for name in sorted(names):
        nfc = unicodedata.normalize("NFC", name)
        sid, n = nfc, 1
        while sid in taken:
            n += 1
            sid = f"{nfc} (duplicate {n})"
        taken.add(sid)
        ids[name] = sid
    return ids


def discover(submissions: Path, assignments: list[str], stubs: dict[str, dict[str, str]],
             reader=None) -> list[Submission]:
    """One Submission per student folder (folder name = student id), sorted by id. Entries of SUBMISSIONS
    that get no row (hidden folders, plain files) are listed by `not_graded`. `reader(student_id, folder,
    assignments, stubs)` reads one folder (default: read_submission)."""
    reader = reader or read_submission
    with os.scandir(submissions) as scan:
        entries = [e for e in scan if not e.name.startswith(".")]
    candidates = [e for e in entries if e.is_symlink() and e.is_dir() or e.is_dir(follow_symlinks=False)]
    ids = student_ids([e.name for e in candidates])
    spellings: dict[str, int] = {}
    for e in candidates:
        nfc = unicodedata.normalize("NFC", e.name)
        spellings[nfc] = spellings.get(nfc, 0) + 1
    found = []
    for entry in candidates:
        student_id = ids[entry.name]
        if entry.is_symlink():
            found.append(refused(student_id, assignments, "the submission folder is a link to another folder; "
                                 "it was not graded (hand in a real folder)"))
            continue
        if spellings[unicodedata.normalize("NFC", entry.name)] > 1:
            found.append(refused(student_id, assignments, f"two submission folders are named "
                                 f"{unicodedata.normalize('NFC', entry.name)!r} in different Unicode spellings; "
                                 "neither was graded: rename or merge them"))
            continue
        found.append(walled(student_id, assignments,
                            lambda: reader(student_id, Path(entry.path), assignments, stubs)))
    return sorted(found, key=lambda s: s.student_id)


def read_submission(student_id: str, folder: Path, assignments: list[str],
                    stubs: dict[str, dict[str, str]]) -> Submission:
    if not any(True for _ in os.scandir(folder)):  # nothing at all in it: the same files as every empty folder
        return empty_submission(student_id, folder, assignments, stubs)
    return read_folder(student_id, folder, assignments, stubs)


_EMPTY: dict[tuple, dict] = {}  # (assignments, stubs) -> what an empty folder holds: a class of 10,000 reads it once


def empty_submission(student_id: str, folder: Path, assignments: list[str],
                     stubs: dict[str, dict[str, str]]) -> Submission:
    """What read_folder gives for an empty folder, read once: its files name no path, so they are shared."""
    key = (tuple(assignments), tuple((a, tuple(sorted(stubs.get(a, {}).items()))) for a in assignments))
    files = _EMPTY.get(key)
    if files is None:
        submission = read_folder(student_id, folder, assignments, stubs)
        if str(folder) in repr(submission.files) or submission.quiz_folder != str(folder):
            return submission  # not the shape assumed here: read every such folder in full
        files = _EMPTY[key] = submission.files
    return Submission(student_id, dict(files), str(folder))


def read_folder(student_id: str, folder: Path, assignments: list[str],
                stubs: dict[str, dict[str, str]]) -> Submission:
    root = submission_root(folder, assignments)
    files, places = {}, {}
    for a in assignments:
        files[a], where = choose(folder, root, a, stubs.get(a, {}))
        if where:
            places[a] = f"{where}/{files[a].filename}"
    quizzes = quiz_folder(root)
    used = {a for a in assignments if (root / a).is_dir()} | ({QUIZ_FOLDER} if quizzes != root else set())
    used |= {f.filename for a, f in files.items() if f.filename and a not in places}
    code_places = [(folder / where).parent for where in places.values()]
    used |= {p.relative_to(root).parts[0] for p in code_places if p != root and p.is_relative_to(root)}
    answers, notes = find_quiz_files(folder, root, code_places)
    used |= {Path(p).relative_to(root).parts[0] for p in answers.values()
             if Path(p).parent != root and Path(p).is_relative_to(root)}  # a folder of answers is not stray
    if places:
        notes.append(f"Files found below the top of the submission and graded as if handed in at the top: "
                     f"{', '.join(places.values())}.")
    extra = extra_files(root, assignments, used)
    if extra and assignments:  # say so once: helper modules, for one, are not importable when grading
        shown = ", ".join(extra[:8]) + (f" and {len(extra) - 8} more" if len(extra) > 8 else "")
        notes.append(f"Not graded: {shown}. Only {' / '.join(f'{a}.py or .ipynb' for a in assignments)} are run "
                     "(each on its own: put helper code inside the graded file).")
    if notes and assignments:
        first = files[assignments[0]]
        files[assignments[0]] = replace(first, notes=first.notes + tuple(notes))
    return Submission(student_id, files, str(quizzes), answers)


def not_graded(submissions: Path) -> list[str]:
    """One line per entry of SUBMISSIONS that gets no gradebook row, saying why."""
    return [line for _, line in not_graded_entries(submissions)]


def not_graded_entries(submissions: Path) -> list[tuple[str, str]]:
    """(name, why) for each entry of SUBMISSIONS that is not a student folder."""
    lines = []
    with os.scandir(submissions) as scan:
        for entry in sorted(scan, key=lambda e: e.name):
            if entry.name.startswith("."):
                lines.append((entry.name, f"skipped {entry.name!r}: hidden (its name starts with a dot)"))
            elif not entry.is_dir():
                kind = "a link, not a student folder" if entry.is_symlink() else "a file, not a student folder"
                hint = " (unzip it into a folder named after the student)" if entry.name.endswith(".zip") else ""
                lines.append((entry.name, f"skipped {entry.name!r}: {kind}{hint}"))
    return lines
