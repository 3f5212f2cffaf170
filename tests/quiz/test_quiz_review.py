"""Review round trip on a class: grade -> pending -> `attnkit review OUT` -> instructor fills in -> grade
applies the decisions to the whole group, keeps them across re-runs; code answers are evaluated once
per distinct answer, in the sandbox."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
import yaml

from autograder import paths
from autograder.grading.quizzes import CODE_CACHE, grade_class_quizzes, load_class_quizzes
from autograder.quiz.review import QUEUE, REVIEW_FILE

pytestmark = pytest.mark.slow

ANSWERS = {  # student -> attention_score answers
    "ann": {"sc-01": "how strongly query i likes key j", "sc-14": "Q @ K.permute(0, 2, 1)", "sc-10": "√dₖ"},
    "ben": {"sc-01": "How strongly query i like key j.", "sc-14": "Q @ K.permute(0, 2, 1)", "sc-10": "d_k"},
    "cy": {"sc-01": "the probability that query i attends to key j", "sc-14": "Q @ K"},
    "dee": {"sc-01": "An unnormalized compatibility between query i and key j", "sc-14": "q @ k.mT"},
}


def write_class(root, answers):
    for student, given in answers.items():
        folder = root / student
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "quiz_attention_score.yaml").write_text(
            "".join(f"{k}: |-\n  {v}\n" for k, v in given.items()), encoding="utf-8")
    return {p.name: p for p in root.iterdir()}


def sc01(results, student):
    quiz = next(q for q in results[student] if q.quiz_id == "attention_score")
    return next(i for i in quiz.items if i.question_id == "sc-01"), quiz


def attnkit(*args):
    return subprocess.run([sys.executable, "-m", "autograder.cli", *args], cwd=paths.ROOT, capture_output=True,
                          text=True, timeout=300)


def test_review_round_trip(tmp_path):
    quizzes = [q for q in load_class_quizzes() if q.id == "attention_score"]
    folders = write_class(tmp_path / "class", ANSWERS)
    out = tmp_path / "out"
    first = grade_class_quizzes(folders, out, quizzes=quizzes)

    # Before review: the free-text answers are pending, not 0; computable ones are graded.
    item, quiz = sc01(first, "ann")
    assert item.pending and item.score == 0 and quiz.pending >= 2
    assert sc01(first, "dee")[0].score == 2 and not sc01(first, "dee")[0].pending  # the accepted answer
    scores = {s: {i.question_id: i.score for i in q.items} for s, (q,) in first.items()}
    assert scores["ann"]["sc-14"] == 1 and scores["ben"]["sc-14"] == 1 and scores["cy"]["sc-14"] == 0
    assert scores["ann"]["sc-10"] == 1 and scores["ben"]["sc-10"] == 0
    cache = json.loads((out / CODE_CACHE).read_text(encoding="utf-8"))
    assert len(cache) == 2  # permute (ann and ben share it), q @ k.mT: each evaluated once; Q @ K is a listed
    #                        misconception, known without running it

    # `attnkit review OUT` groups near-identical answers: ann's and ben's are one group.
    run = attnkit("review", "--file", str(out))
    assert run.returncode == 0, run.stderr
    document = yaml.safe_load((out / REVIEW_FILE).read_text(encoding="utf-8"))
    groups = document["attention_score"]["sc-01"]["groups"]
    shared = next(g for g in groups if "ann" in g["students"])
    assert shared["students"] == ["ann", "ben"] and shared["score"] is None and len(shared["answers"]) == 2
    alone = next(g for g in groups if "cy" in g["students"])
    assert alone["students"] == ["cy"]

    # The instructor decides; the next grading applies it to the whole group.
    shared["score"], shared["feedback"] = 1.5, "Raw similarity, yes; say 'unnormalised' too."
    alone["score"] = 0
    text = (out / REVIEW_FILE).read_text(encoding="utf-8").split("\n\n", 1)[0] + "\n\n" + yaml.safe_dump(document)
    (out / REVIEW_FILE).write_text(text, encoding="utf-8")
    second = grade_class_quizzes(folders, out, quizzes=quizzes)
    for student in ("ann", "ben"):
        item, quiz = sc01(second, student)
        assert (item.score, item.pending) == (1.5, False) and "say 'unnormalised' too" in item.feedback
    assert (sc01(second, "cy")[0].score, sc01(second, "cy")[0].pending) == (0, False)
    assert json.loads((out / QUEUE).read_text(encoding="utf-8")) == {}

    # A late student with an answer of that group needs no new decision; a new wording does.
    folders = write_class(tmp_path / "class", {"eve": {"sc-01": "how strongly query i likes key j"},
                                               "fay": {"sc-01": "the affinity of q_i for k_j"}})
    third = grade_class_quizzes(folders, out, quizzes=quizzes)
    assert sc01(third, "eve")[0].score == 1.5 and sc01(third, "fay")[0].pending
    assert attnkit("review", "--no-browser", str(out)).returncode == 0
    again = yaml.safe_load((out / REVIEW_FILE).read_text(encoding="utf-8"))["attention_score"]["sc-01"]["groups"]
    assert [g["score"] for g in again if "ann" in g["students"]] == [1.5]  # decisions survive a re-gather
    assert [g["students"] for g in again if g["score"] is None] == [["fay"]]


def test_bad_decisions_are_reported_and_stay_pending(tmp_path):
    quizzes = [q for q in load_class_quizzes() if q.id == "attention_score"]
    folders = write_class(tmp_path / "class", {"ann": ANSWERS["ann"]})
    out = tmp_path / "out"
    grade_class_quizzes(folders, out, quizzes=quizzes)
    assert attnkit("review", "--no-browser", str(out)).returncode == 0
    document = yaml.safe_load((out / REVIEW_FILE).read_text(encoding="utf-8"))
    document["attention_score"]["sc-01"]["groups"][0]["score"] = 5  # more than the question's 2 points
    (out / REVIEW_FILE).write_text(yaml.safe_dump(document), encoding="utf-8")
    warnings = []
    results = grade_class_quizzes(folders, out, quizzes=quizzes, warn=warnings.append)
    assert sc01(results, "ann")[0].pending
    assert any("score 5 is not a number from 0 to 2" in w for w in warnings)
    again = attnkit("review", "--no-browser", str(out))  # the review asks for it again, never "nothing to review"
    assert again.returncode == 0 and "Nothing to review" not in again.stderr, again.stderr
    group = yaml.safe_load((out / REVIEW_FILE).read_text(encoding="utf-8"))["attention_score"]["sc-01"]["groups"][0]
    assert group["score"] is None and "score 5 is not a number from 0 to 2" in group["why"]


def test_review_without_a_graded_folder_says_so(tmp_path):
    run = attnkit("review", "--file", str(tmp_path))
    assert run.returncode == 1 and "run the grading" in run.stderr
    (tmp_path / ".state").mkdir()
    run = attnkit("review", "--file", str(tmp_path))  # graded, nothing pending: an empty review file
    assert run.returncode == 0 and "Nothing to review" in run.stderr and "no quiz answer waits" in run.stderr
