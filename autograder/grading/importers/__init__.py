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
from .times import shown_stamp


YES_NO = {True: "yes", False: "no"}


@dataclass(frozen=True)
class PartArrival:
    """When one part of a student's work arrived, where the platform dates each part apart (nbgrader with one
    assignment per notebook): the platform's name for the part, its time, and whether it was late."""
    part: str
    submitted_at: str = ""
    late: bool | None = None
    due: str = ""            # the due date that applied (the extended one where there is an extension)
    extension: str = ""      # the extension the platform records ("1 day"), "" where there is none

    def text(self) -> str:
        """"ps1: submitted 2026-11-30 10:06 UTC, late (due 2026-11-30 10:00 UTC)", "..., on time (due
        2026-12-01 10:05 UTC with an extension of 1 day)"."""
        when = f"submitted {shown_stamp(self.submitted_at)}" if self.submitted_at else "no submission time"
        granted = f"with an extension of {self.extension}" if self.extension else ""
        verdict = {True: "late", False: "on time"}.get(self.late, "")
        due = " (" + " ".join(filter(None, [f"due {self.due}" if self.due else "", granted])) + ")"
        return f"{self.part}: {when}" + (f", {verdict}" if verdict else "") + (due if due != " ()" else "")


@dataclass(frozen=True)
class Identity:
    """What a platform says about one student; empty where it says nothing."""
    name: str = ""
    email: str = ""
    sid: str = ""            # the institution's student id (Gradescope's SID)
    lms_user_id: str = ""    # Canvas's user id: the `ID` column of its gradebook export
    late: bool | None = None  # what the platform says (Canvas marks late uploads); None: it does not say
    submitted_at: str = ""   # when the graded work was handed in, as the platform wrote it (ISO 8601)
    parts: tuple[PartArrival, ...] = ()  # per part, where the platform dates parts apart (late: any part late)
    notes: tuple[str, ...] = ()          # what else the platform says of the arrival (which upload was graded)

    def columns(self) -> dict[str, str]:
        return {"name": self.name, "email": self.email, "sid": self.sid, "lms_user_id": self.lms_user_id}

    def arrival(self) -> dict[str, str]:
        """The `submitted_at` and `late` cells: "yes"/"no" where the platform says, "" where it does not; with
        several dated parts, `submitted_at:<part>` and `late:<part>` for each; `arrival_note`: extensions and
        which upload was graded."""
        found = {"submitted_at": shown_stamp(self.submitted_at), "late": YES_NO.get(self.late, "")}
        if len(self.parts) > 1:
            for part in self.parts:
                found[f"submitted_at:{part.part}"] = shown_stamp(part.submitted_at)
                found[f"late:{part.part}"] = YES_NO.get(part.late, "")
        extended = [f"{p.part}: extension of {p.extension} (due {p.due})" if len(self.parts) > 1
                    else f"extension of {p.extension} (due {p.due})" for p in self.parts if p.extension]
        found["arrival_note"] = "; ".join([*extended, *self.notes])
        dated = len(self.parts) > 1 or any(p.extension for p in self.parts)
        found["detail"] = " ".join(filter(None, [
            ("When each part arrived: " if len(self.parts) > 1 else "Submitted: ")
            + "; ".join(p.text() for p in self.parts) + "." if dated else "",
            "; ".join(self.notes) + "." if self.notes else ""]))
        return found

    def late_parts(self) -> list[str]:
        """The parts handed in late, where the platform dates parts apart ([] otherwise)."""
        return [p.part for p in self.parts if p.late] if len(self.parts) > 1 else []


@dataclass
class ClassImport:
    layout: str                                   # e.g. "Canvas download"
    submissions: list[Submission]
    summary: str                                  # the line for the terminal
    identities: dict[str, Identity] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)  # entries that are no student's submission, with why


from .detect import import_class  # noqa: E402  (the package's entry point)

__all__ = ["ClassImport", "Identity", "PartArrival", "import_class"]
