"""What a student reads on Gradescope after a regrade with review decisions is true whatever score was given,
and `attnkit gradescope --review` says how many groups stay pending, 0 included."""
from __future__ import annotations

import subprocess
import sys

import pytest

from autograder import paths
from autograder.quiz.outcome import REVIEWED
from autograder.reporting.gradescope import reviewed_notes
from autograder.results import QuizItem, QuizResult


def quiz(*scores: float) -> QuizResult:
    items = tuple(QuizItem(f"q{n}", score, 2.0, f"read. {REVIEWED}") for n, score in enumerate(scores))
    return QuizResult("attention", sum(scores), 2.0 * len(scores), items)


@pytest.mark.parametrize("scores, given", [((0.0,), "giving 0 of 2 points"), ((2.0, 0.5), "giving 2.5 of 4 points")])
def test_the_points_given_are_said_where_the_quiz_scores_are_shown(scores, given):
    [note] = reviewed_notes([quiz(*scores)], lambda quiz_id: "visible")
    assert note == (f"Quiz attention: your instructor has scored {len(scores)} answer{'s' * (len(scores) > 1)} the "
                    f"grader left to a person, giving {given.split('giving ')[1]}, counted in your score.")
    assert "those points are now" not in note


def test_before_the_keys_are_out_no_score_is_named():
    [note] = reviewed_notes([quiz(0.0)], lambda quiz_id: "after_due_date")
    assert note == ("Quiz attention: your instructor has scored 1 answer the grader left to a person; your score "
                    "includes the points given, which the quiz's entry shows after the due date.")


@pytest.mark.parametrize("score, said", [("1", "0 groups stay pending"),
                                         ("null", "1 group(s) still undecided stay pending")])
def test_make_gradescope_says_how_many_groups_stay_pending(tmp_path, score, said):
    (tmp_path / ".state").mkdir()
    (tmp_path / "review.yaml").write_text("attention_score:\n  sc-01:\n    groups:\n    - score: 1\n"
                                          "      answers: [x]\n"
                                          f"    - score: {score}\n      answers: [y]\n", encoding="utf-8")
    built = subprocess.run([sys.executable, "-m", "autograder.cli", "gradescope", "--out", str(tmp_path / "z.zip"),
                            "--review", str(tmp_path)], cwd=paths.ROOT, capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr
    text = " ".join((built.stdout + built.stderr).split())
    decided = 2 if score == "1" else 1
    assert f"with {decided} review decision(s) from {tmp_path / 'review.yaml'}; {said}:" in text
