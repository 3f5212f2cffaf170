"""The course as content: which assignments and quizzes exist, and which of them are released now.

An assignment is a master in source/ (`source/<name>.py`); where there are no masters (the Gradescope zip,
which holds the course file alone in source/), the handout folders in assignments/ are the assignments. A
quiz is a YAML file in quizzes/. Nothing is registered by hand: a new master is an assignment as it exists.

The course file, `source/course.yaml`, says in what order the parts come (`order:`, optional: masters it does
not list follow in name order) and which parts are released (`released:`, `all` when absent). `make grade`,
`make release` and `make gradescope` take a selection (`PARTS=attention_scores,quiz:attention_score`) that
overrides `released:`; a part that is not selected is neither graded nor shown anywhere.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from . import paths

COURSE_FILE = paths.SOURCE_DIR / "course.yaml"
QUIZ_PREFIX = "quiz:"


class CourseError(ValueError):
    """The course's content or a selection of its parts cannot be used; the message says why and what exists."""


def _course_data(course_file: Path) -> dict:
    if not course_file.is_file():
        return {}
    import yaml

    try:
        data = yaml.safe_load(course_file.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise CourseError(f"{course_file} is not valid YAML: {exc}") from None
    if data is None:
        return {}
    if not isinstance(data, dict) or set(data) - {"order", "released"}:
        raise CourseError(f"{course_file}: expected only the keys `order` and `released`, got {data!r}")
    return data


def _names(value: object, key: str, course_file: Path) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        value = [part.strip() for part in value.split(",") if part.strip()]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise CourseError(f"{course_file}: `{key}` is a list of names, got {value!r}")
    return value


def discover_assignments(source_dir: Path, assignments_dir: Path, course_file: Path) -> tuple[str, ...]:
    """Every assignment: the masters in `source_dir` (files starting with `_` are helpers, not masters), or,
    without masters, the handout folders in `assignments_dir`; in the course file's `order`, then by name."""
    found = sorted(p.stem for p in source_dir.glob("*.py") if not p.name.startswith("_")) \
        if source_dir.is_dir() else []
    masters = bool(found)
    if not masters and assignments_dir.is_dir():
        found = sorted(p.name for p in assignments_dir.iterdir() if (p / f"{p.name}.py").is_file())
    order = _names(_course_data(course_file).get("order"), "order", course_file)
    unknown = [name for name in order if name not in found]
    if unknown and masters:
        raise CourseError(f"{course_file}: `order` names {', '.join(unknown)}, which has no master in "
                          f"{source_dir} (the masters: {', '.join(found) or 'none'})")
    listed = [name for name in order if name in found]
    return tuple(listed + [name for name in found if name not in listed])


def named_in_order() -> tuple[str, ...]:
    """Every assignment the course file's `order` names, held here or not: a Gradescope zip of one release holds
    only the released parts, and its course file still names the others (a student's early file is left alone)."""
    return tuple(_names(_course_data(COURSE_FILE).get("order"), "order", COURSE_FILE))


@lru_cache(maxsize=None)
def assignments() -> tuple[str, ...]:
    """The course's assignments, in order (cached: the masters do not change while the kit runs)."""
    return discover_assignments(paths.SOURCE_DIR, paths.ASSIGNMENTS_DIR, COURSE_FILE)


def quiz_ids(quizzes_dir: Path | None = None) -> tuple[str, ...]:
    """The course's quizzes by id, in file-name order (as load_quizzes reads them)."""
    from .quiz import load_quizzes

    folder = quizzes_dir or paths.QUIZZES_DIR
    return tuple(load_quizzes(folder, formulas=False)) if folder.is_dir() else ()


@dataclass(frozen=True)
class Parts:
    """A selection of the course's parts: assignments by name and quizzes by id, each in the course's order.
    `quizzes` None: every quiz of the course (read only when asked: loading the quizzes costs start-up)."""
    assignments: tuple[str, ...]
    quizzes: tuple[str, ...] | None = None

    def has_quiz(self, quiz_id: str) -> bool:
        return self.quizzes is None or quiz_id in self.quizzes

    def quiz_ids(self) -> tuple[str, ...]:
        return quiz_ids() if self.quizzes is None else self.quizzes

    def names(self) -> list[str]:
        return [*self.assignments, *(QUIZ_PREFIX + q for q in self.quiz_ids())]

    def describe(self) -> str:
        return ", ".join(self.names()) or "nothing"


def every_part(all_assignments: tuple[str, ...] | None = None, all_quizzes: tuple[str, ...] | None = None) -> Parts:
    return Parts(assignments() if all_assignments is None else all_assignments,
                 quiz_ids() if all_quizzes is None else all_quizzes)


def select(names: list[str] | str | None, all_assignments: tuple[str, ...] | None = None,
           all_quizzes: tuple[str, ...] | None = None, where: str = "PARTS (--parts)") -> Parts:
    """The parts named (`attention_scores`, `quiz:attention_score`, or `all`), in the course's order. An unknown
    name or an empty selection is refused, naming the parts that exist."""
    if isinstance(names, str):
        names = [part.strip() for part in names.split(",") if part.strip()]
    if names is None or names == ["all"]:
        return Parts(assignments() if all_assignments is None else all_assignments, all_quizzes)
    everything = every_part(all_assignments, all_quizzes)
    known = everything.names()
    unknown = [name for name in names if name not in known]
    if unknown or not names:
        what = f"names {', '.join(unknown)}, which" if unknown else "selects nothing, which"
        raise CourseError(f"{where} {what} is not a part of this course; the parts are: {', '.join(known)} "
                          f"(a quiz as {QUIZ_PREFIX}<id>; `all` for every part)")
    wanted = set(names)
    return Parts(tuple(a for a in everything.assignments if a in wanted),
                 tuple(q for q in everything.quizzes if QUIZ_PREFIX + q in wanted))


def released(course_file: Path | None = None) -> Parts:
    """The parts the course file releases (every part when it lists none)."""
    course_file = course_file or COURSE_FILE
    listed = _course_data(course_file).get("released")
    if listed is None or listed == "all":
        return Parts(assignments())
    return select(_names(listed, "released", course_file), where=f"{course_file.name}'s `released`")


def chosen(parts: str | None) -> Parts:
    """What a command works on: the selection given (PARTS=... / --parts), else the course file's `released`."""
    return select(parts) if parts else released()
