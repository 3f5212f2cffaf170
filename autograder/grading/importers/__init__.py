"""Read a class as instructors download it, into the Submission objects the engine grades.

One module per layout: per-student folders (folders.py, also per-student zips), a Canvas "Download
submissions" folder (canvas.py), a Gradescope "Export Submissions" folder (gradescope.py), an nbgrader
course root (nbgrader.py); a class zip is unpacked first and read as whichever of those it holds.
detect.py picks the layout. Every importer names what it read in one line for the terminal, lists what it
skipped and why, and keeps what the platform knows of each student (name, e-mail, student id, LMS user id)
for the gradebook and the Canvas roster join. Files are copied (or linked) into a staging folder inside OUT
when the layout has to be rearranged; student code is never run here.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..submissions import Submission


@dataclass(frozen=True)
class Identity:
    """What a platform says about one student; empty where it says nothing."""
    name: str = ""
    email: str = ""
    sid: str = ""            # the institution's student id (Gradescope's SID)
    lms_user_id: str = ""    # Canvas's user id: the `ID` column of its gradebook export
    late: bool | None = None  # what the platform says (Canvas marks late uploads); None: it does not say
    submitted_at: str = ""   # when the graded work was handed in, as the platform wrote it (ISO 8601)

    def columns(self) -> dict[str, str]:
        return {"name": self.name, "email": self.email, "sid": self.sid, "lms_user_id": self.lms_user_id}

    def arrival(self) -> dict[str, str]:
        """The `submitted_at` and `late` cells: "yes"/"no" where the platform says, "" where it does not."""
        return {"submitted_at": self.submitted_at, "late": {True: "yes", False: "no"}.get(self.late, "")}


@dataclass
class ClassImport:
    layout: str                                   # e.g. "Canvas download"
    submissions: list[Submission]
    summary: str                                  # the line for the terminal
    identities: dict[str, Identity] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)  # entries that are no student's submission, with why


from .detect import import_class  # noqa: E402  (the package's entry point)

__all__ = ["ClassImport", "Identity", "import_class"]
