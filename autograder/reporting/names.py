"""How people are named in what a teacher reads: lists that stay readable when a name holds a comma, and
Canvas's own test account recognised wherever it appears."""
from __future__ import annotations

from .escape import one_line


def quoted(names, limit: int | None = None) -> str:
    """'"Lovelace, Ada", "Lee, Barbara"': each name quoted, so a comma inside one is not read as a separator;
    past `limit` names, "and N more". Each name is one line (escape.py's `one_line`): a newline or a control
    character in a name is shown, never obeyed; the list then goes through its output's own rule."""
    names = list(names)
    shown = names if limit is None else names[:limit]
    text = ", ".join('"' + one_line(name).replace('"', "'") + '"' for name in shown)
    return text + (f" and {len(names) - len(shown)} more" if len(shown) < len(names) else "")


def is_test_student(name: str) -> bool:
    """Canvas's student-view account: "Student, Test" in gradebook exports, "Test Student" as a display name,
    "studenttest" in the file names of a submissions download."""
    return "".join(c for c in name.casefold() if c.isalnum()) in ("studenttest", "teststudent")
