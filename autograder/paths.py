"""Where the kit's parts live, relative to the repository (or the unpacked autograder zip)."""
from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE_DIR = ROOT / "source"            # one master per assignment: the single source of everything
ASSIGNMENTS_DIR = ROOT / "assignments"  # generated: what students get
SOLUTIONS_DIR = ROOT / "solutions"      # generated: instructor versions, the reference for grading
GRADERS_DIR = ROOT / "autograder" / "graders"  # generated: hidden pytest graders
QUIZZES_DIR = ROOT / "quizzes"
DEMO_CLASS_DIR = ROOT / "demo" / "submissions"
# In the Gradescope zip only: the review decisions bundled by `make gradescope OUT=...` (a regrade applies them)
BUNDLED_REVIEW = ROOT / "review.yaml"



def __getattr__(name: str):
    """`paths.ASSIGNMENTS`: every assignment of the course, discovered from the masters in source/ (course.py);
    there is no list to keep by hand."""
    if name == "ASSIGNMENTS":
        from .course import assignments

        return assignments()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
