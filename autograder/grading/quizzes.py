"""Grade each student's quiz answer files (quiz_<quiz id>.yaml) beside their code, in the parent.

Answer files are YAML parsed with safe loading: data, never code. The quiz package's results are
mapped into the kit's result model so every renderer shows quizzes next to the exercises.
"""
from __future__ import annotations

import os
import unicodedata
from pathlib import Path

from .. import paths
from ..quiz import Quiz, grade_submission, load_quizzes
from .results import QuizItem, QuizResult


def load_class_quizzes(folder: Path = paths.QUIZZES_DIR) -> list[Quiz]:
    return list(load_quizzes(folder).values()) if folder.is_dir() else []


def student_folders(submissions: Path) -> dict[str, Path]:
    return {unicodedata.normalize("NFC", p.name): p for p in submissions.iterdir() if p.is_dir()}


def grade_student_quizzes(quizzes: list[Quiz], folder: Path) -> tuple[QuizResult, ...]:
    return tuple(grade_one(quiz, folder) for quiz in quizzes)


def grade_one(quiz: Quiz, folder: Path) -> QuizResult:
    graded = grade_submission(quiz, folder)

    def shown(text: str) -> str:  # students see their file's name, not the grading machine's paths
        return " ".join(text.replace(f"{folder}{os.sep}", "").split("\n"))

    items = tuple(QuizItem(i.question_id, float(i.score), float(i.max_score), feedback_for(i)) for i in graded.items)
    return QuizResult(quiz.id, float(graded.score), float(graded.max_score), items,
                      shown(graded.problem) if graded.problem else None)


def feedback_for(item) -> str:
    parts = [item.feedback] if item.feedback else []
    if item.score < item.max_score:
        parts.append(f"Expected: {item.correct_answer}. {item.explanation}".strip())
    return " ".join(p.strip() for p in parts if p and p.strip())
