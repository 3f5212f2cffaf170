"""The demo class's quiz answers are drawn per (student, quiz): adding a quiz (the walk's multi-head quiz,
tests/walk_course/) leaves every demo student's answers to the other quizzes exactly as they were."""
from __future__ import annotations

import shutil
from pathlib import Path

from autograder import paths
from autograder.authoring.demo import demo_files

WALK_QUIZ = Path(__file__).parent / "walk_course" / "multi_head_attention.yaml"


def quiz_files(files: dict[str, str]) -> dict[str, str]:
    return {name: text for name, text in files.items() if Path(name).name.startswith("quiz_")}


def test_adding_a_quiz_changes_no_other_quiz_answer(tmp_path, monkeypatch):
    before = quiz_files(demo_files())
    quizzes = tmp_path / "quizzes"
    shutil.copytree(paths.QUIZZES_DIR, quizzes)
    shutil.copy2(WALK_QUIZ, quizzes / WALK_QUIZ.name)
    monkeypatch.setattr(paths, "QUIZZES_DIR", quizzes)
    after = quiz_files(demo_files())
    added = {name for name in after if name not in before}
    assert added and all(name.endswith("/quiz_multi_head_attention.yaml") for name in added), added
    assert {name: after[name] for name in before} == before
    assert len({text for name, text in after.items() if name in added}) > 1   # the students answer differently
