"""A finished review teaches the quiz: `python -m autograder.quiz learn OUT [--write]` (autograder/quiz/learn.py).

Decisions from every labelled set stand in for a teacher's review; what they teach is written into a copy of
the shipped quiz files, which must still load (schema and loader checks), keep their comments, never score a
decided answer otherwise than it was decided, and grade the next wording that reads the same by itself.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from autograder import paths
from autograder.quiz import grade_question, load_quiz, load_quizzes
from autograder.quiz.learn import learn
from autograder.quiz.review import REVIEW_FILE

from conftest import QUIZ_DIR

HERE = Path(__file__).parent


def _copy(tmp_path) -> dict[str, Path]:
    folder = tmp_path / "quizzes"
    shutil.copytree(QUIZ_DIR, folder)
    return {quiz.id: Path(quiz.source_path) for quiz in load_quizzes(folder).values()}


def _review(decisions: dict[tuple[str, str], list[tuple[float, list[str]]]]) -> dict:
    document: dict = {}
    for (quiz_id, qid), groups in decisions.items():
        document.setdefault(quiz_id, {})[qid] = {"groups": [{"score": s, "answers": a} for s, a in groups]}
    return document


def _labelled_review(real_quizzes, name: str) -> dict:
    """The review a teacher of this set's class leaves: every answer the kit does not grade, with its label."""
    owner = {q.id: quiz_id for quiz_id, quiz in real_quizzes.items() for q in quiz.questions}
    groups: dict = {}
    for qid, rows in yaml.safe_load((HERE / name).read_text(encoding="utf-8")).items():
        q = real_quizzes[owner[qid]].question(qid)
        if q.grading == "code":
            continue  # run in the sandbox; learn adds exact code wordings only, checked by their text
        for row in rows:
            if isinstance(row["answer"], str) and grade_question(q, row["answer"]).pending:
                groups.setdefault((owner[qid], qid), []).append((float(row["score"]), [row["answer"]]))
    return _review(groups)


def test_a_wording_of_a_key_term_is_learned_and_read_in_other_answers(tmp_path):
    sources = _copy(tmp_path)
    answer = "the scores get too big, so the softmax saturates"
    quiz = load_quiz(sources["attention_score"])
    assert grade_question(quiz.question("sc-07"), answer).pending
    # sc-07 is worth 3; "scores grow, softmax saturates" is a scored reading at 2
    candidates, changed = learn(_review({("attention_score", "sc-07"): [(2, [answer])]}), sources)
    (added,) = [c for c in candidates if not c.refused]
    assert (added.kind, added.target, added.item) == ("term", "scores-grow", "scores get too big")
    sources["attention_score"].write_text(changed["attention_score"], encoding="utf-8")
    learned = load_quiz(sources["attention_score"]).question("sc-07")
    assert grade_question(learned, answer).score == 2 and not grade_question(learned, answer).pending
    # other wordings that now read the same: graded by themselves
    for other in ("The scores get too big and so the softmax saturates.", "scores get too big, softmax saturates, "
                  "gradients vanish"):
        item = grade_question(learned, other)
        assert not item.pending and item.score == (2 if "gradients" not in other else 3), (other, item.feedback)
    # comments of the file are kept: only the phrase is added
    before = (QUIZ_DIR / sources["attention_score"].name).read_text(encoding="utf-8").splitlines()
    after = changed["attention_score"].splitlines()
    assert len(before) == len(after) and sum(a != b for a, b in zip(before, after)) == 1


def test_an_addition_that_would_score_a_decided_answer_otherwise_is_refused(tmp_path):
    sources = _copy(tmp_path)
    # "fixes" read as "removes" makes "it fixes the bottleneck" the scored answer at 1 point; a teacher who
    # decided it is worth 0 in the same review keeps that decision
    review = _review({("attention", "att-07"): [(1, ["it fixes the bottleneck"]), (0, ["it fixes that bottleneck"])]})
    candidates, changed = learn(review, sources)
    first = next(c for c in candidates if c.answer == "it fixes the bottleneck")
    assert (first.kind, first.item) == ("term", "fixes") and "'it fixes that bottleneck' was decided 0" in first.refused
    learned = sources["attention"]
    learned.write_text(changed.get("attention", learned.read_text(encoding="utf-8")), encoding="utf-8")
    q = load_quiz(learned).question("att-07")
    assert grade_question(q, "it fixes the bottleneck").pending  # the refused reading is not there


def test_words_that_turn_a_meaning_and_verdicts_are_never_learned(tmp_path):
    sources = _copy(tmp_path)
    review = _review({("attention_score", "sc-07"): [(2, ["the scores do not get too big, so the softmax saturates"])],
                      ("attention", "att-02"): [(1, ["certo"])]})
    candidates, changed = learn(review, sources)
    assert not changed and all(c.refused for c in candidates)
    assert any("may turn the meaning" in c.refused for c in candidates)


@pytest.mark.parametrize("name", ["heldout6_answers.yaml"])  # every set: make bench-learn
def test_every_labelled_sets_review_teaches_a_quiz_that_loads_and_keeps_every_decision(tmp_path, real_quizzes, name):
    sources = _copy(tmp_path)
    review = _labelled_review(real_quizzes, name)
    candidates, changed = learn(review, sources)
    assert [c for c in candidates if not c.refused], name
    for quiz_id, text in changed.items():
        sources[quiz_id].write_text(text, encoding="utf-8")
    learned = load_quizzes(sources["attention"].parent)  # schema and loader checks, in full
    for quiz_id, blocks in review.items():
        for qid, block in blocks.items():
            q = learned[quiz_id].question(qid)
            if q.grading == "code":
                continue  # code is run in the sandbox: its additions are exact wordings, checked by learn
            for group in block["groups"]:
                for answer in group["answers"]:
                    item = grade_question(q, answer)
                    assert item.pending or item.score == group["score"], (qid, answer, group["score"], item.score)


def test_the_command_shows_a_diff_and_writes_only_when_asked(tmp_path):
    sources = _copy(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    review = _review({("attention_score", "sc-07"): [(2, ["the scores get too big, so the softmax saturates"])]})
    (out / REVIEW_FILE).write_text(yaml.safe_dump(review), encoding="utf-8")
    folder = sources["attention"].parent
    before = sources["attention_score"].read_text(encoding="utf-8")
    command = [sys.executable, "-m", "autograder.quiz", "learn", str(out), "--quizzes", str(folder)]
    shown = subprocess.run(command, capture_output=True, text=True, cwd=paths.ROOT, timeout=300)
    assert shown.returncode == 0, shown.stderr
    assert '+      scores-grow:' in shown.stdout or '"scores get too big"' in shown.stdout
    assert shown.stdout.count("\n+") >= 1 and "add     attention_score sc-07" in shown.stdout
    assert sources["attention_score"].read_text(encoding="utf-8") == before
    written = subprocess.run(command + ["--write"], capture_output=True, text=True, cwd=paths.ROOT, timeout=300)
    assert written.returncode == 0 and "written:" in written.stderr
    assert '"scores get too big"' in sources["attention_score"].read_text(encoding="utf-8")
    load_quiz(sources["attention_score"])
