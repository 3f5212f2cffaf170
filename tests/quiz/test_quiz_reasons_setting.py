"""`reasons: read | choice`: what a reason beside an option or verdict does to its score.

`read` (the default): a reason that may turn the answer sends it to a person. `choice`: the option or verdict
alone decides the points, and such an answer is listed for the teacher (review.yaml's `noted`) without
holding its score back. Either way an answer that is not one clear choice waits for a person.
"""
from __future__ import annotations

import pytest
import yaml

from autograder.grading.quizzes import grade_class_quizzes
from autograder.quiz import grade_question, load_quiz
from autograder.quiz.model import QuizFormatError
from autograder.quiz.review import REVIEW_FILE, write_review

# (question, answer, its choice is right): each reason may contradict the key, so `read` sends it to a person
CONTRADICTING = [
    ("q-tf", "True, because it uses a causal mask", True), ("q-tf", "true, but the rows sum to less than 1", True),
    ("q-tf", "vrai car les poids somment à 1", True), ("q-tf", "false, but the rows sum to 1", False),
    ("q-mc", "b) beta, because it is second", True), ("q-mc", "(b) beta, but alpha", True),
    ("q-mc", "a) alpha, but beta", False),
]
NOT_ONE_CHOICE = [("q-tf", "true: it's false"), ("q-tf", "false, but really it is true"), ("q-tf", "true ✗"), ("q-mc", "a b"), ("q-mc", "b ✗"),
                  ("q-mc", "a) beta")]


def _quiz(tmp_path, minimal_quiz_data, **settings):
    path = tmp_path / "quiz.yaml"
    path.write_text(yaml.safe_dump({**minimal_quiz_data, **settings}, allow_unicode=True), encoding="utf-8")
    return load_quiz(path)


@pytest.mark.parametrize("qid, answer, right", CONTRADICTING)
def test_read_sends_a_contradicting_reason_to_a_person_and_choice_scores_the_choice(
        tmp_path, minimal_quiz_data, qid, answer, right):
    read = _quiz(tmp_path, minimal_quiz_data).question(qid)
    assert read.reasons == "read"
    item = grade_question(read, answer)
    assert (item.pending or item.score == 0) and not item.noted, item.feedback
    choice = _quiz(tmp_path, minimal_quiz_data, reasons="choice").question(qid)
    item = grade_question(choice, answer)
    assert not item.pending and item.score == (choice.points if right else 0), item.feedback
    if right:
        assert item.noted.startswith(("scored by its option", "scored by its verdict")), item.noted
        assert "reason" not in item.feedback  # the note is for the teacher, not in the student's feedback


@pytest.mark.parametrize("qid, answer", NOT_ONE_CHOICE)
def test_an_answer_that_is_not_one_choice_waits_whatever_the_setting(tmp_path, minimal_quiz_data, qid, answer):
    for settings in ({}, {"reasons": "choice"}):
        item = grade_question(_quiz(tmp_path, minimal_quiz_data, **settings).question(qid), answer)
        assert item.pending and item.score == 0, (settings, answer, item.feedback)


def test_a_question_may_set_its_own(tmp_path, minimal_quiz_data):
    minimal_quiz_data["questions"][1]["reasons"] = "choice"
    quiz = _quiz(tmp_path, minimal_quiz_data)
    assert quiz.question("q-tf").reasons == "choice" and quiz.question("q-mc").reasons == "read"
    quiz = _quiz(tmp_path, minimal_quiz_data, reasons="choice")
    assert quiz.question("q-mc").reasons == "choice"


@pytest.mark.parametrize("where, value", [("quiz", "maybe"), ("q-tf", "yes"), ("q-sa", "choice"), ("q-num", "read")])
def test_the_schema_refuses_other_values_and_other_question_types(tmp_path, minimal_quiz_data, where, value):
    if where == "quiz":
        minimal_quiz_data["reasons"] = value
    else:
        next(q for q in minimal_quiz_data["questions"] if q["id"] == where)["reasons"] = value
    with pytest.raises(QuizFormatError, match="reasons"):
        _quiz(tmp_path, minimal_quiz_data)


def test_noted_answers_are_listed_in_the_review_file(tmp_path, minimal_quiz_data):
    quiz = _quiz(tmp_path, minimal_quiz_data, reasons="choice")
    answers = {"ann": "True, because it uses a causal mask", "ben": "true, because it uses a causal mask.",
               "cy": "true", "dee": "maybe"}
    folders = {}
    for student, given in answers.items():
        (tmp_path / "class" / student).mkdir(parents=True)
        (tmp_path / "class" / student / "quiz_mini.yaml").write_text(yaml.safe_dump({"q-tf": given}), encoding="utf-8")
        folders[student] = tmp_path / "class" / student
    out = tmp_path / "out"
    results = grade_class_quizzes(folders, out, quizzes=[quiz])
    scores = {s: next(i for i in r[0].items if i.question_id == "q-tf") for s, r in results.items()}
    assert [scores[s].score for s in ("ann", "ben", "cy")] == [1, 1, 1] and scores["dee"].pending
    write_review(out, {quiz.id: quiz})
    block = yaml.safe_load((out / REVIEW_FILE).read_text(encoding="utf-8"))["mini"]["q-tf"]
    noted = block["noted"]
    assert len(noted) == 2 and sorted(s for n in noted for s in n["students"]) == ["ann", "ben"]
    assert all("mask" in n["answer"] and n["why"].startswith("scored by its verdict (true)") for n in noted)
    assert [g["answers"] for g in block["groups"]] == [["maybe"]]  # only dee's answer waits for a decision
