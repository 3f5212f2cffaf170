"""Shared fixtures for the quiz tests."""

from __future__ import annotations

import copy
import sys
from pathlib import Path
from typing import Any, Callable

import pytest
import yaml

REPO_ROOT = Path(__file__).resolve().parents[2]
# Make `autograder` and the helper `quiz_gift_reader` importable whatever pytest's import mode.
for _folder in (REPO_ROOT, Path(__file__).resolve().parent):
    if str(_folder) not in sys.path:
        sys.path.insert(0, str(_folder))

QUIZ_DIR = REPO_ROOT / "quizzes"
LESSON_DIR = REPO_ROOT.parent / "shared" / "lessons"

# One question of each type: the smallest quiz the schema accepts, mutated by broken-quiz tests.
MINIMAL_QUIZ: dict[str, Any] = {
    "id": "mini",
    "title": "Mini quiz",
    "lesson": "lesson.txt",
    "objectives": ["Objective one.", "Objective two."],
    "questions": [
        {
            "id": "q-mc", "source": "knowledge-check", "type": "multiple_choice",
            "prompt": "Pick b.", "points": 1,
            "options": [{"id": "a", "text": "alpha"}, {"id": "b", "text": "beta"}, {"id": "c", "text": "gamma"}],
            "answer": "b", "explanation": "Because b.", "objective": "Objective one.", "misconception": None,
        },
        {
            "id": "q-tf", "source": "knowledge-check", "type": "true_false",
            "prompt": "Is this true?", "points": 1, "answer": True,
            "explanation": "It is.", "objective": "Objective one.", "misconception": "It is false.",
        },
        {
            "id": "q-sa", "source": "objective", "type": "short_answer",
            "prompt": "What does scaled attention divide by?", "points": 2,
            "accepted": ["square root of d_k"], "regex": [r"(by )?sqrt\(dk\)"],
            "rubric": [{"keywords": ["sqrt*", "root"], "points": 1}, {"keywords": ["dk"], "points": 1}],
            "explanation": "By sqrt(d_k).", "objective": "Objective two.", "misconception": None,
        },
        {
            "id": "q-num", "source": "objective", "type": "numeric",
            "prompt": "1/sqrt(d_k) for d_k = 64?", "points": 1, "answer": 0.125, "tolerance": 0.001,
            "explanation": "1/8.", "objective": "Objective two.", "misconception": None,
        },
    ],
}


@pytest.fixture
def minimal_quiz_data() -> dict[str, Any]:
    return copy.deepcopy(MINIMAL_QUIZ)


@pytest.fixture
def write_yaml(tmp_path: Path) -> Callable[[str, Any], Path]:
    """Write data (or raw text) as a YAML file under tmp_path and return its path."""

    def write(name: str, data: Any) -> Path:
        path = tmp_path / name
        path.write_text(data if isinstance(data, str) else yaml.safe_dump(data, allow_unicode=True),
                        encoding="utf-8")
        return path

    return write


@pytest.fixture(scope="session")
def real_quizzes() -> dict:
    from autograder.quiz import load_quizzes

    return load_quizzes(QUIZ_DIR)


@pytest.fixture(scope="session")
def lesson_quizzes(real_quizzes) -> dict:
    """The course's quizzes written from a lesson file, with labelled answer sets (tests/test_course.py)."""
    from tests.test_course import LESSON_QUIZZES

    return {quiz_id: quiz for quiz_id, quiz in real_quizzes.items() if quiz_id in LESSON_QUIZZES}


@pytest.fixture(scope="session")
def lesson_dir() -> Path:
    if not LESSON_DIR.is_dir():
        pytest.skip(f"lesson folder {LESSON_DIR} not found (shared/lessons must sit beside the repo)")
    return LESSON_DIR
