"""Times as platforms write them, read into UTC, and shown one way everywhere: "2026-11-30 10:01 UTC" (seconds
only where they are not zero, never microseconds). A time written without a zone is taken as UTC (nbgrader
writes its times in UTC); the importer that reads such times says so once."""
from __future__ import annotations

from datetime import datetime, timezone


def parse_time(text: str) -> datetime | None:
    """"2026-11-30 10:00:00.000000 UTC" (nbgrader's timestamp.txt), a naive time (UTC), or ISO 8601 with an
    offset, in UTC. None for anything else (a time zone given by name other than UTC)."""
    text = text.strip()
    if text.upper().endswith(" UTC"):
        text = text[:-4]
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        return None
    return when.replace(tzinfo=timezone.utc) if when.tzinfo is None else when.astimezone(timezone.utc)


def has_zone(text: str) -> bool:
    """Whether a time as written says its zone (" UTC", "Z", an offset); False for what is no time."""
    text = text.strip()
    if text.upper().endswith(" UTC"):
        return True
    try:
        return datetime.fromisoformat(text).tzinfo is not None
    except ValueError:
        return False


def shown_time(when: datetime) -> str:
    return when.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC" if when.second else "%Y-%m-%d %H:%M UTC")


def shown_stamp(text: str) -> str:
    """A time as the platform wrote it, shown as shown_time does; what cannot be read as a time, as written."""
    when = parse_time(text) if text else None
    return shown_time(when) if when is not None else text
