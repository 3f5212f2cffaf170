"""Find each student's files and turn them into source text, in the trusted parent.

Nothing here executes student code: a notebook is parsed as JSON and its code cells are taken
as text, with IPython magics and shell escapes commented out (they mean nothing to the grader).
"""
from __future__ import annotations

import hashlib
import re
import unicodedata
import warnings
from dataclasses import dataclass, field, replace
from pathlib import Path

import nbformat

MAX_PY_BYTES = 1 << 20        # a .py twin is a few KB; 1 MiB is generous
MAX_NOTEBOOK_BYTES = 20 << 20  # notebooks carry outputs (plots), so allow more
KIT_CELL_TAGS = {"kit-init", "kit-check", "kit-explore"}  # generated cells that the grader skips
SAFE_NAME = re.compile(r"^[\w][\w .\-]{0,99}$")


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

    @property
    def fingerprint(self) -> str:
        parts = [f"{name}:{f.filename}:{f.digest}:{f.problem}" for name, f in sorted(self.files.items())]
        return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def result_stem(student_id: str) -> str:
    """A file name for a student's outputs: the id itself when it is safe, else a slug plus a hash."""
    if SAFE_NAME.match(student_id) and student_id not in (".", ".."):
        return student_id
    slug = re.sub(r"[^\w.\-]+", "_", student_id).strip("._")[:40] or "student"
    return f"{slug}-{hashlib.sha256(student_id.encode()).hexdigest()[:8]}"


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


def notebook_cells(raw: bytes) -> tuple[list[str], list[str]]:
    with warnings.catch_warnings():  # students' notebooks are often slightly off-schema (missing ids)
        warnings.simplefilter("ignore")
        notebook = nbformat.reads(raw.decode("utf-8"), as_version=4)
    cells, notes = [], []
    for cell in notebook.cells:
        if cell.get("cell_type") != "code":
            continue
        if KIT_CELL_TAGS & set(cell.get("metadata", {}).get("tags", [])):
            continue
        source, had_magic = strip_magics(cell.get("source", ""))
        if had_magic:
            notes.append("IPython magics and shell escapes (`%...`, `!...`) are ignored when grading.")
        cells.append(source)
    return cells, sorted(set(notes))


def read_file(folder: Path, path: Path, assignment: str) -> SourceFile:
    name = path.name
    try:
        resolved = path.resolve(strict=True)
    except (OSError, RuntimeError):
        return SourceFile(assignment, name, problem=f"{name} is a broken link")
    if not resolved.is_relative_to(folder.resolve()):
        return SourceFile(assignment, name, problem=f"{name} is a link pointing outside your submission")
    if not resolved.is_file():
        return SourceFile(assignment, name, problem=f"{name} is not a regular file")
    limit = MAX_NOTEBOOK_BYTES if name.endswith(".ipynb") else MAX_PY_BYTES
    if resolved.stat().st_size > limit:
        return SourceFile(assignment, name, problem=f"{name} is larger than {limit >> 20} MiB")
    try:
        raw = resolved.read_bytes()
    except OSError as exc:
        return SourceFile(assignment, name, problem=f"{name} could not be read ({exc.__class__.__name__})")
    digest = hashlib.sha256(raw).hexdigest()
    try:
        if name.endswith(".ipynb"):
            cells, notes = notebook_cells(raw)
        else:
            cells, notes = [raw.decode("utf-8")], []
    except UnicodeDecodeError:
        return SourceFile(assignment, name, problem=f"{name} is not UTF-8 text", digest=digest)
    except Exception as exc:  # noqa: BLE001 - nbformat raises many kinds (jsonschema's ValidationError...);
        # whatever one student's file does, it must become that file's problem, not stop the class
        return SourceFile(assignment, name, problem=f"{name} is not a readable notebook ({exc.__class__.__name__})",
                          digest=digest)
    if "\x00" in "".join(cells):
        return SourceFile(assignment, name, problem=f"{name} contains binary data, not Python code", digest=digest)
    return SourceFile(assignment, name, tuple(cells), notes=tuple(notes), digest=digest)


def choose(folder: Path, assignment: str, stub_text: dict[str, str]) -> SourceFile:
    """Pick the student's file for one assignment. With both `.py` and `.ipynb` present, the one that
    differs from the shipped stub wins; if both were edited, the notebook wins."""
    candidates = [folder / f"{assignment}{ext}" for ext in (".ipynb", ".py")]
    present = [p for p in candidates if p.exists() or p.is_symlink()]
    if not present:
        return SourceFile(assignment, None, problem=f"no {assignment}.py or {assignment}.ipynb in the submission")
    read = [read_file(folder, p, assignment) for p in present]
    if len(read) == 1:
        return read[0]
    usable = [f for f in read if f.problem is None] or read
    edited = [f for f in usable if normalize(f.text) != normalize(stub_text.get(f.filename.rsplit(".", 1)[1], ""))]
    chosen = (edited or usable)[0]
    note = (f"Both {assignment}.py and {assignment}.ipynb were submitted; graded {chosen.filename} "
            "(the one changed from the handout; the notebook when both were).")
    return replace(chosen, notes=chosen.notes + (note,))


def normalize(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip().splitlines() if line.strip())


IGNORED_NAMES = {"__pycache__", "__MACOSX", "Thumbs.db", "desktop.ini"}
QUIZ_ANSWERS = re.compile(r"^quiz_[\w.\-]+\.ya?ml$")  # graded beside the code (grading/quizzes.py)


def extra_files(folder: Path, assignments: list[str]) -> list[str]:
    """Names in a student's folder that nothing grades (hidden files and caches left out)."""
    graded = {f"{a}{ext}" for a in assignments for ext in (".py", ".ipynb")}
    try:
        names = sorted(p.name for p in folder.iterdir())
    except OSError:
        return []
    return [n for n in names if n not in graded and n not in IGNORED_NAMES and not n.startswith(".")
            and not QUIZ_ANSWERS.match(n)]


def discover(submissions: Path, assignments: list[str], stubs: dict[str, dict[str, str]]) -> list[Submission]:
    """One Submission per student folder (folder name = student id), sorted by id."""
    found = []
    for folder in sorted(p for p in submissions.iterdir() if p.is_dir() and not p.name.startswith(".")):
        student_id = unicodedata.normalize("NFC", folder.name)
        files = {a: choose(folder, a, stubs.get(a, {})) for a in assignments}
        extra = extra_files(folder, assignments)
        if extra and assignments:  # say so once: helper modules, for one, are not importable when grading
            first = files[assignments[0]]
            shown = ", ".join(extra[:8]) + (f" and {len(extra) - 8} more" if len(extra) > 8 else "")
            note = (f"Not graded: {shown}. Only {' / '.join(f'{a}.py or .ipynb' for a in assignments)} are run "
                    "(each on its own: put helper code inside the graded file).")
            files[assignments[0]] = replace(first, notes=first.notes + (note,))
        found.append(Submission(student_id, files))
    return found
