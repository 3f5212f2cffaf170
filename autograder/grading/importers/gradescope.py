"""Gradescope "Export Submissions": one `submission_<id>/` folder per submission, and
`submission_metadata.yml` mapping each folder to its submitters and times.

The metadata is written by Ruby: its keys are often symbols (`:submitters:`, `:name:`, `:sid:`,
`:email:`), sometimes plain words; both are read. A submission with several submitters (a group) gives
each submitter a row, graded on the same files. The student id is the submitter's name (with the SID
added when two share a name); name, e-mail, SID and the submission time (`:created_at:`) go into the
gradebook. The export does not say which submissions were late (it has no due date), so `late` stays blank.

The metadata is read with the bounded parser (autograder/bounded.py): nesting, long numbers (kept as text)
and names (one line, at most MAX_NAME_CHARS characters) are bounded. A metadata file that cannot be read
costs the names only: every submission folder is then graded under its own name.
"""
from __future__ import annotations

import re
from pathlib import Path

import yaml

from ...bounded import MAX_DEPTH, BoundedYamlText, TooComplex, plain_name
from ...results import safe_text
from ..submissions import visible, walled
from . import ClassImport, Identity
from .folders import read_student

METADATA = "submission_metadata.yml"


def plain(value, depth: int = 0, done: dict | None = None):
    """Ruby symbol keys (`:name`) as plain keys (`name`), down to MAX_DEPTH: YAML aliases (Ruby writes them
    for a value used twice) are converted once, and a cycle they make ends there."""
    done = {} if done is None else done
    if depth > MAX_DEPTH or not isinstance(value, (dict, list)):
        return None if depth > MAX_DEPTH else value
    if id(value) not in done:
        if isinstance(value, dict):
            done[id(value)] = {plain_name(k).lstrip(":").strip().lower(): plain(v, depth + 1, done)
                               for k, v in value.items()}
        else:
            done[id(value)] = [plain(v, depth + 1, done) for v in value]
    return done[id(value)]


def read_metadata(path: Path) -> dict[str, list[Identity] | str]:
    """folder name -> its submitters, or why its entry could not be read (then only that entry is lost: the
    file is read entry by entry). Raises ValueError with the reason when the file cannot be read at all."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{METADATA} could not be read ({exc.__class__.__name__})") from None
    try:
        data = _load(text)
    except ValueError:
        return _entry_by_entry(text)
    if not isinstance(data, dict):
        raise ValueError(f"{METADATA} is not a mapping from submission folders to submitters")
    return {plain_name(folder): _submitters(entry) for folder, entry in data.items()}


_TOP_KEY = re.compile(r"^(?P<key>[^\s#-].*?):[ \t]*$")  # `submission_123:` at the start of a line


def _load(text: str):
    """The metadata as plain data; ValueError (saying why, for the instructor) when it is beyond the bounds or
    not YAML."""
    try:
        return plain(yaml.load(text, Loader=BoundedYamlText) or {})
    except TooComplex as exc:
        raise ValueError(f"it holds {exc}") from None
    except yaml.YAMLError as exc:
        raise ValueError(f"not valid YAML: {getattr(exc, 'problem', None) or exc.__class__.__name__}") from None


def _entry_by_entry(text: str) -> dict[str, list[Identity] | str]:
    pieces: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        match = _TOP_KEY.match(line)
        if match:
            pieces.append((plain_name(match["key"].strip("'\"")), [line]))
        elif pieces:
            pieces[-1][1].append(line)
    if not pieces:
        raise ValueError(f"{METADATA} could not be read (no `submission_<id>:` entries found)")
    found: dict[str, list[Identity] | str] = {}
    for key, lines in pieces:
        try:
            data = _load("\n".join(lines))
        except ValueError as exc:
            found[key] = str(exc)
            continue
        for folder, entry in (data.items() if isinstance(data, dict) else ()):
            found[plain_name(folder)] = _submitters(entry)
    return found


def _submitters(entry) -> list[Identity]:
    submitters = entry.get("submitters") if isinstance(entry, dict) else None
    when = entry.get("created_at") if isinstance(entry, dict) else None
    when = safe_text(when.isoformat() if hasattr(when, "isoformat") else plain_name(when), 64)  # YAML may parse it
    return [Identity(name=plain_name(person.get("name")), email=plain_name(person.get("email")),
                     sid=plain_name(person.get("sid")), submitted_at=when)
            for person in (submitters if isinstance(submitters, list) else []) if isinstance(person, dict)]


def export_root(folder: Path) -> Path | None:
    """The folder holding the metadata: SUBMISSIONS itself or its single sub-folder."""
    if (folder / METADATA).is_file():
        return folder
    entries = visible(folder)
    inner = [e for e in entries if e.is_dir(follow_symlinks=False)]
    if len(inner) == 1 and len(entries) == 1 and (Path(inner[0].path) / METADATA).is_file() \
            and any(e.name.startswith("submission_") and e.is_dir() for e in visible(Path(inner[0].path))):
        return Path(inner[0].path)  # the export's own top folder (a zip of it, unpacked)
    return None


def import_gradescope(folder: Path, stage: Path, assignments: list[str],
                      stubs: dict[str, dict[str, str]]) -> ClassImport:
    root = export_root(folder)
    skipped = []
    try:
        metadata = read_metadata(root / METADATA)
    except ValueError as exc:  # the names are lost, not the class: each folder is graded under its own name
        metadata = {}
        skipped.append(f"{exc}: every submission is graded under its folder name, with no name or e-mail")
    for folder_name, why in sorted((k, v) for k, v in metadata.items() if isinstance(v, str)):
        skipped.append(f"{METADATA}: the entry for {folder_name!r} could not be read ({why}): graded under its "
                       "folder name, with no name or e-mail")
        metadata[folder_name] = []
    names: dict[str, set[str]] = {}  # name -> the different people (SID or e-mail) who carry it
    for people in metadata.values():
        for person in people:
            names.setdefault(person.name, set()).add(person.sid or person.email)
    submissions, identities, groups = [], {}, 0
    for entry in visible(root):
        if entry.name == METADATA:
            continue
        if not entry.is_dir(follow_symlinks=False):
            skipped.append(f"skipped {entry.name!r}: not a submission folder of the export")
            continue
        people = metadata.get(entry.name) or [Identity()]
        if entry.name not in metadata and metadata:
            skipped.append(f"{entry.name!r} is not in {METADATA}: graded under its folder name, with no name "
                           "or e-mail to join it to")
        groups += len(people) > 1
        for person in people:
            student_id = person.name or person.sid or person.email or entry.name
            if person.name and len(names.get(person.name, ())) > 1:
                student_id = f"{person.name} ({person.sid or person.email or entry.name})"
            base, n = student_id, 1
            while student_id in identities:  # the same person twice: keep both rows, never merge
                n += 1
                student_id = f"{base} (duplicate {n})"
            submissions.append(walled(student_id, assignments,
                                      lambda: read_student(student_id, Path(entry.path), stage, assignments, stubs)))
            identities[student_id] = person
    for folder_name in sorted(set(metadata) - {e.name for e in visible(root)}):
        skipped.append(f"{METADATA} lists {folder_name!r}, which is not in the export")
    folders = sum(1 for e in visible(root) if e.is_dir(follow_symlinks=False))
    summary = (f"Gradescope export: {folders} submissions, {len(submissions)} students; names, e-mails and SIDs "
               f"read from {METADATA}" + (f"; {groups} group submission(s)" if groups else ""))
    return ClassImport("Gradescope export", sorted(submissions, key=lambda s: s.student_id), summary, identities,
                       skipped)
