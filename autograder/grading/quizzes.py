"""Grade each student's quiz answer files (quiz_<quiz id>.yaml) beside their code, in the parent.

Answer files are YAML parsed with safe loading: data, never code. The quiz package's results are
mapped into the kit's result model so every renderer shows quizzes next to the exercises.
"""
from __future__ import annotations

import unicodedata
from pathlib import Path

from .. import paths
from ..quiz import Quiz, answer_file_name, grade_answer_file, load_quizzes
from .results import QuizItem, QuizResult

MAX_ANSWER_BYTES = 256 << 10


def load_class_quizzes(folder: Path = paths.QUIZZES_DIR) -> list[Quiz]:
    return list(load_quizzes(folder).values()) if folder.is_dir() else []


def student_folders(submissions: Path) -> dict[str, Path]:
    return {unicodedata.normalize("NFC", p.name): p for p in submissions.iterdir() if p.is_dir()}


def grade_student_quizzes(quizzes: list[Quiz], folder: Path) -> tuple[QuizResult, ...]:
    return tuple(grade_one(quiz, folder) for quiz in quizzes)


def grade_one(quiz: Quiz, folder: Path) -> QuizResult:
    name = answer_file_name(quiz)
    path = folder / name
    zero = [QuizItem(q.id, 0.0, float(q.points)) for q in quiz.questions]
    max_score = float(sum(q.points for q in quiz.questions))
    if not path.exists():
        return QuizResult(quiz.id, 0.0, max_score, tuple(zero), f"no {name} handed in: quiz scored 0")
    if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_ANSWER_BYTES:
        return QuizResult(quiz.id, 0.0, max_score, tuple(zero),
                          f"{name} is not a regular file under {MAX_ANSWER_BYTES >> 10} KiB: quiz scored 0")
    graded = grade_answer_file(quiz, path)
    items = tuple(QuizItem(i.question_id, float(i.score), float(i.max_score), feedback_for(i)) for i in graded.items)
    problem = f"{name}: {graded.problem.split(': ', 1)[-1]}" if graded.problem else None
    return QuizResult(quiz.id, float(graded.score), float(graded.max_score), items, problem)


def feedback_for(item) -> str:
    parts = [item.feedback] if item.feedback else []
    if item.score < item.max_score:
        parts.append(f"Expected: {item.correct_answer}. {item.explanation}".strip())
    return " ".join(p.strip() for p in parts if p and p.strip())
