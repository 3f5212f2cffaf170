"""A deadline the teacher gives (`attnkit grade --due`), applied where the download has submission times but
does not say who was late (a Gradescope export, an nbgrader course without due dates). What a platform said
itself (Canvas's late mark, nbgrader's due dates) is kept: the deadline only fills in what is not known."""
from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timezone

from . import ClassImport
from .times import parse_time


def parse_due(text: str) -> datetime:
    """The deadline; ValueError with the sentence to show when it is no time, or has no time zone."""
    stripped = text.strip()
    upper = stripped.upper()
    utc = upper.endswith((" UTC", "Z"))
    core = stripped[:-4] if upper.endswith(" UTC") else stripped[:-1] if upper.endswith("Z") else stripped
    try:
        when = datetime.fromisoformat(core)
    except ValueError:
        raise ValueError(f"{text!r} is not a date and time, as in 2026-11-25T23:59-08:00.") from None
    if when.tzinfo is None:
        if not utc:
            raise ValueError(f"{text!r} needs a time zone, as in 2026-11-25T23:59-08:00 (or a Z for UTC).")
        when = when.replace(tzinfo=timezone.utc)
    return when.astimezone(timezone.utc)


def apply_due(imported: ClassImport, due: datetime) -> str:
    """Set `late` from each known submission time where the platform did not say; the line for the terminal."""
    decided = late = unknown = 0
    for student, who in list(imported.identities.items()):
        if who.late is not None:
            continue
        when = parse_time(who.submitted_at) if who.submitted_at else None
        if when is None:
            unknown += 1
            continue
        imported.identities[student] = replace(who, late=when > due)
        decided += 1
        late += when > due
    unknown += sum(1 for s in imported.submissions if s.student_id not in imported.identities)
    if not decided:
        return (f"--due: no submission time to compare with it in this {imported.layout} (late is what the "
                "platform says, where it says)")
    return (f"--due {due.isoformat()}: {late} of {decided} submitted after it"
            + (f"; not known for {unknown} (no submission time)" if unknown else ""))
