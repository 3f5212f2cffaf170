"""The commands the terminal tells an instructor to run next, written so that they work where the instructor
is: `make review OUT=...` under make (which runs in the kit's folder), else this environment's `attnkit`, named
by its path when it is not on PATH. Grading records where the class came from (OUT/.state/graded-from.txt),
so that the review can say how to grade again."""
from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path

from . import paths

GRADED_FROM = Path(".state") / "graded-from.txt"  # not .state/*.json: those are student results


def default_out(submissions: Path) -> Path:
    return paths.ROOT / "out" / ("demo" if submissions == paths.DEMO_CLASS_DIR else
                                 submissions.name.removesuffix(".zip"))


def _shown(path: Path) -> str:
    absolute = path.absolute()
    here = Path.cwd()
    return shlex.quote(str(absolute.relative_to(here)) if absolute.is_relative_to(here) else str(absolute))


def _program() -> str:
    script = Path(sys.executable).with_name("attnkit")
    on_path = shutil.which("attnkit")
    if on_path and script.exists() and Path(on_path).resolve() == script.resolve():
        return "attnkit"
    if script.exists():
        return shlex.quote(str(script.absolute()))  # works from any folder
    return f"{shlex.quote(sys.executable)} -m autograder.cli"


def _under_make() -> bool:
    """Run by the kit's own `make grade` (which sets this), not merely by some make: a course's own Makefile
    that calls `attnkit grade` elsewhere gets the command that works from its folder."""
    return os.environ.get("ATTNKIT_VIA_MAKE") == "1"


def review_command(out: Path) -> str:
    if _under_make():
        return "make review" + ("" if out.absolute() == default_out(paths.DEMO_CLASS_DIR).absolute()
                                else f" OUT={_shown(out)}")
    return f"{_program()} review {_shown(out)}"


def make_review(out: Path) -> str:
    """`make review` for OUT as a file read later says it (summary.txt, report.html): make runs in the kit's
    folder, so OUT is written from there."""
    absolute = out.absolute()
    if absolute == default_out(paths.DEMO_CLASS_DIR).absolute():
        return "make review"
    root = paths.ROOT.absolute()
    shown = absolute.relative_to(root) if absolute.is_relative_to(root) else absolute
    return f"make review OUT={shlex.quote(str(shown))}"


def grade_command(out: Path) -> str | None:
    """How to grade OUT's class again (to apply review decisions), with the roster and due date it was graded
    with (without them canvas.csv and the late marks would silently change), or None when OUT does not say."""
    try:
        lines = (out / GRADED_FROM).read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    if not lines or not lines[0].strip():
        return None
    submissions = Path(lines[0].strip())
    given = dict(line.split("=", 1) for line in lines[1:] if "=" in line)  # roster=..., due=...
    roster = Path(given["roster"]) if given.get("roster") else None
    due = given.get("due") or None
    parts = given.get("parts") or None  # the selection graded (PARTS=...): a regrade keeps it
    demo = submissions == paths.DEMO_CLASS_DIR
    if _under_make():
        words = ["make grade"] + ([] if demo else [f"SUBMISSIONS={_shown(submissions)}"])
        if out.absolute() != default_out(submissions).absolute():
            words.append(f"OUT={_shown(out)}")
        if roster:
            words.append(f"ROSTER={_shown(roster)}")
        if due:
            words.append(f"DUE={shlex.quote(due)}")
        if parts:
            words.append(f"PARTS={shlex.quote(parts)}")
        return " ".join(words)
    return " ".join([_program(), "grade", *([] if demo else [_shown(submissions)]), "--out", _shown(out),
                     *(["--roster", _shown(roster)] if roster else []), *(["--due", shlex.quote(due)] if due else []),
                     *(["--parts", shlex.quote(parts)] if parts else [])])


def record_source(out: Path, submissions: Path, roster: Path | None = None, due: str | None = None,
                  parts: str | None = None) -> None:
    from .results import write_atomic

    lines = [str(submissions.resolve())]
    if roster:
        lines.append(f"roster={roster.resolve()}")
    if due:
        lines.append(f"due={' '.join(due.split())}")  # one line: a due date cannot forge another entry
    if parts:
        lines.append(f"parts={' '.join(parts.split())}")
    write_atomic(out / GRADED_FROM, "\n".join(lines) + "\n")
