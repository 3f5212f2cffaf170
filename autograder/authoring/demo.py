"""The bundled demo class, derived from the solutions and handouts so it never drifts from them.

Each student is the reference solution with the realistic mistakes listed in source/demo.yaml (exact text
replacements), or the handout itself. `make assignments` writes it to demo/submissions/.
"""
from __future__ import annotations

import random
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import yaml

from .. import paths
from ..quiz import Quiz, load_quizzes

DEMO_FILE = paths.SOURCE_DIR / "demo.yaml"  # who the demo students are: course content, beside the masters


@dataclass(frozen=True)
class DemoClass:
    mistakes: dict[str, dict[str, list[tuple[str, str]]]]  # student -> assignment -> [(right text, wrong text)]
    notebooks: tuple[str, ...] = ()
    solutions: tuple[str, ...] = ()
    handouts: tuple[str, ...] = ()
    quiz_skill: dict[str, float] = field(default_factory=dict)
    broken_quiz: tuple[str, str, str] | None = None  # (student, answer file name, its text)
    notation: tuple[str, str] | None = None  # (student, how that student writes a square root)


def demo_class(path: Path = DEMO_FILE) -> DemoClass:
    """The demo class as source/demo.yaml describes it; without that file, one student hands in every
    solution notebook, one every solution and one every handout."""
    if not path.is_file():
        return DemoClass({}, ("grace",), ("ada",), ("alan",))
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    unknown = sorted({a for student in (data.get("mistakes") or {}).values() for a in student}
                     - set(paths.ASSIGNMENTS))
    if unknown:
        raise ValueError(f"{path.name} names {', '.join(unknown)}, which has no master in source/")
    broken, notation = data.get("broken_quiz"), data.get("notation")
    return DemoClass(
        {student: {a: [(e["right"], e["wrong"]) for e in edits or []] for a, edits in assignments.items()}
         for student, assignments in (data.get("mistakes") or {}).items()},
        tuple(data.get("notebooks") or ()), tuple(data.get("solutions") or ()), tuple(data.get("handouts") or ()),
        {student: float(share) for student, share in (data.get("quiz_skill") or {}).items()},
        (broken["student"], broken["file"], broken["text"]) if broken else None,
        (notation["student"], notation["sqrt"]) if notation else None)


def mutated(assignment: str, mistakes: list[tuple[str, str]]) -> str:
    text = (paths.SOLUTIONS_DIR / assignment / f"{assignment}.py").read_text(encoding="utf-8")
    for right, wrong in mistakes:
        if right not in text:
            raise ValueError(f"demo: the solution of {assignment} no longer contains {right!r}")
        text = text.replace(right, wrong, 1)
    return text


def notebook_with_magic(assignment: str) -> str:
    """The solution notebook as a student who also left a `%matplotlib inline` in it."""
    notebook = nbformat.read(paths.SOLUTIONS_DIR / assignment / f"{assignment}.ipynb", as_version=4)
    notebook.cells.insert(2, nbformat.v4.new_code_cell("%matplotlib inline", id="student-magic"))
    return nbformat.writes(notebook) + "\n"


def quiz_answers(quiz: Quiz, skill: float, rng: random.Random, sqrt_as: str | None = None) -> str:
    answers = {}
    for question in quiz.questions:
        sqrt_answer = sqrt_as is not None and "sqrt" in str(question.accepted).lower()
        if rng.random() < skill or sqrt_answer:
            answers[question.id] = question.accepted[0] if question.type == "short_answer" else question.answer
            if sqrt_answer:
                answers[question.id] = sqrt_as
        elif question.type == "true_false":
            answers[question.id] = not question.answer
        elif question.type == "multiple_choice":
            answers[question.id] = next(o.id for o in question.options if o.id != question.answer)
        elif question.type == "numeric":
            answers[question.id] = 1.0
        else:  # a misconception the quiz names (often one for a person to weigh), else a doubt (scored 0)
            listed = [m.answer for m in question.misconceptions if isinstance(m.answer, str)]
            answers[question.id] = listed[0] if listed else "I am not sure"
    return yaml.safe_dump(answers, allow_unicode=True, sort_keys=False)


def demo_files(demo: DemoClass | None = None) -> dict[str, str]:
    """Path below demo/submissions -> content."""
    demo = demo or demo_class()
    files = {}
    for student, assignments in demo.mistakes.items():
        for assignment, mistakes in assignments.items():
            files[f"{student}/{assignment}.py"] = mutated(assignment, mistakes)
    for assignment in paths.ASSIGNMENTS:
        for student in demo.solutions:
            files[f"{student}/{assignment}.py"] = mutated(assignment, [])
        for student in demo.notebooks:
            files[f"{student}/{assignment}.ipynb"] = notebook_with_magic(assignment)
        handout = paths.ASSIGNMENTS_DIR / assignment / f"{assignment}.ipynb"
        for student in demo.handouts:
            files[f"{student}/{assignment}.ipynb"] = handout.read_text(encoding="utf-8")
    for student, skill in demo.quiz_skill.items():
        for quiz in load_quizzes(paths.QUIZZES_DIR).values():
            sqrt_as = demo.notation[1] if demo.notation and student == demo.notation[0] else None
            # a draw of its own per (student, quiz): adding a quiz leaves every other quiz's answers as they were
            rng = random.Random(zlib.crc32(f"{student}/{quiz.id}".encode()))
            files[f"{student}/quiz_{quiz.id}.yaml"] = quiz_answers(quiz, skill, rng, sqrt_as)
    if demo.broken_quiz:
        student, name, text = demo.broken_quiz
        files[f"{student}/{name}"] = text
    return files
