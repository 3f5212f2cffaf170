"""Gradescope "Export Submissions": one `submission_<id>/` folder per submission, and
`submission_metadata.yml` mapping each folder to its submitters and times.

The metadata is written by Ruby: its keys are often symbols (`:submitters:`, `:name:`, `:sid:`,
`:email:`), sometimes plain words; both are read. A submission with several submitters (a group) gives
each submitter a row, graded on the same files. The student id is the submitter's name (with the SID
added when two share a name); name, e-mail, SID and the submission time (`:created_at:`) go into the
gradebook. The export does not say which submissions were late (it has no due date), so `late` stays blank.
"""
from __future__ import annotations

from pathlib import Path

import yaml

from ...results import safe_text
from ..submissions import visible
from . import ClassImport, Identity
from .folders import read_student

METADATA = "submission_metadata.yml"


def plain(value):
    """Ruby symbol keys (`:name`) as plain keys (`name`), all the way down."""
    if isinstance(value, dict):
        return {str(k).lstrip(":").strip().lower(): plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def read_metadata(path: Path) -> dict[str, list[Identity]]:
    """folder name -> its submitters. Raises ValueError with the reason when the file cannot be read."""
    try:
        data = plain(yaml.safe_load(path.read_text(encoding="utf-8")) or {})
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise ValueError(f"{METADATA} could not be read ({exc.__class__.__name__})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{METADATA} is not a mapping from submission folders to submitters")
    found = {}
    for folder, entry in data.items():
        submitters = entry.get("submitters") if isinstance(entry, dict) else None
        when = entry.get("created_at") if isinstance(entry, dict) else None
        when = when.isoformat() if hasattr(when, "isoformat") else str(when or "").strip()  # YAML may parse it
        when = safe_text(when, 64)
        people = []
        for person in submitters if isinstance(submitters, list) else []:
            if isinstance(person, dict):
                people.append(Identity(name=str(person.get("name") or "").strip(),
                                       email=str(person.get("email") or "").strip(),
                                       sid=str(person.get("sid") or "").strip(), submitted_at=when))
        found[str(folder)] = people
    return found


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
    metadata = read_metadata(root / METADATA)
    names: dict[str, set[str]] = {}  # name -> the different people (SID or e-mail) who carry it
    for people in metadata.values():
        for person in people:
            names.setdefault(person.name, set()).add(person.sid or person.email)
    submissions, identities, skipped, groups = [], {}, [], 0
    for entry in visible(root):
        if entry.name == METADATA:
            continue
        if not entry.is_dir(follow_symlinks=False):
            skipped.append(f"skipped {entry.name!r}: not a submission folder of the export")
            continue
        people = metadata.get(entry.name) or [Identity()]
        if entry.name not in metadata:
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
            submissions.append(read_student(student_id, Path(entry.path), stage, assignments, stubs))
            identities[student_id] = person
    for folder_name in sorted(set(metadata) - {e.name for e in visible(root)}):
        skipped.append(f"{METADATA} lists {folder_name!r}, which is not in the export")
    folders = sum(1 for e in visible(root) if e.is_dir(follow_symlinks=False))
    summary = (f"Gradescope export: {folders} submissions, {len(submissions)} students; names, e-mails and SIDs "
               f"read from {METADATA}" + (f"; {groups} group submission(s)" if groups else ""))
    return ClassImport("Gradescope export", sorted(submissions, key=lambda s: s.student_id), summary, identities,
                       skipped)
