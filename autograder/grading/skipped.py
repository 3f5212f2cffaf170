"""What an importer skipped, in two kinds: entries named like a student's file that could not be read as one
(the teacher must act: counted with what could not be graded) and entries that are no student's at all."""
from __future__ import annotations

UNREAD = "could not be graded: "  # the first words of a skipped entry of the first kind


def split_skipped(skipped: list[str]) -> tuple[list[str], list[str]]:
    """(named like a student's file but not read, no student's submission)."""
    return [s for s in skipped if s.startswith(UNREAD)], [s for s in skipped if not s.startswith(UNREAD)]
