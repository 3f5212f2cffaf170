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
from autograder.grading.quizzes import grade_class_quizzes, load_class_quizzes
from autograder.quiz.kit_scored import KIT_SCORED, read_kit_scored, write_kit_scored
from autograder.quiz.learn import learn
from autograder.quiz.review import REVIEW_FILE, save_review, write_review

from conftest import QUIZ_DIR
from tests.quiz.keep_cases import DECIDED, KIT_SCORED_2, REFUSAL

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
    write_kit_scored(out, {})  # a class whose answers all waited for the review
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


def graded_class(tmp_path, answers: dict[str, str]) -> tuple[Path, Path]:
    """(quiz folder, OUT) of a class graded with a copy of the quiz files, its att-07 answers reviewed:
    every waiting answer decided 2 (the teacher's decision)."""
    quizzes_dir = tmp_path / "quizzes"
    shutil.copytree(QUIZ_DIR, quizzes_dir)
    for sid, answer in answers.items():
        (tmp_path / "class" / sid).mkdir(parents=True)
        (tmp_path / "class" / sid / "quiz_attention.yaml").write_text(yaml.safe_dump({"att-07": answer}),
                                                                       encoding="utf-8")
    out = tmp_path / "out"
    grade_class_quizzes({p.name: p for p in sorted((tmp_path / "class").iterdir())}, out,
                        quizzes=load_class_quizzes(quizzes_dir))
    path, _, _, _ = write_review(out, load_quizzes(quizzes_dir, formulas=False))
    document = yaml.safe_load(path.read_text(encoding="utf-8"))
    for group in document["attention"]["att-07"]["groups"]:
        group["score"] = 2
    save_review(path, document)
    return quizzes_dir, out


def _learn_command(out: Path, quizzes_dir: Path, *more: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "autograder.quiz", "learn", str(out), "--quizzes", str(quizzes_dir),
                           *more], capture_output=True, text=True, cwd=paths.ROOT, timeout=300)


def test_an_addition_that_would_change_an_answer_the_kit_scored_by_itself_is_refused(tmp_path):
    quizzes_dir, out = graded_class(tmp_path, {"s1": DECIDED, "s2": KIT_SCORED_2, "s3": KIT_SCORED_2})
    assert read_kit_scored(out)["attention"]["att-07"] == [
        {"answer": KIT_SCORED_2, "score": 2.0, "students": ["s2", "s3"]}]  # what grading recorded
    before = (quizzes_dir / "attention.yaml").read_text(encoding="utf-8")
    shown = _learn_command(out, quizzes_dir, "--write")
    assert shown.returncode == 0, shown.stderr
    assert f"refused attention att-07: {DECIDED!r} at 2: phrase 'one final vecter' for term 'one-vector'" \
           f" - refused: {REFUSAL}" in shown.stdout
    assert "0 addition(s), 1 refused" in shown.stderr and "written:" not in shown.stderr
    assert (quizzes_dir / "attention.yaml").read_text(encoding="utf-8") == before


def test_without_that_answer_in_the_class_the_same_decision_is_kept(tmp_path):
    quizzes_dir, out = graded_class(tmp_path, {"s1": DECIDED})
    written = _learn_command(out, quizzes_dir, "--write")
    assert written.returncode == 0 and "written:" in written.stderr, written.stderr
    assert '"one final vecter"' in (quizzes_dir / "attention.yaml").read_text(encoding="utf-8")
    assert grade_question(load_quiz(quizzes_dir / "attention.yaml").question("att-07"), KIT_SCORED_2).pending


def test_a_class_graded_without_the_record_of_the_kits_own_scores_teaches_nothing(tmp_path):
    quizzes_dir, out = graded_class(tmp_path, {"s1": DECIDED, "s2": KIT_SCORED_2})
    (out / KIT_SCORED).unlink()  # graded by a kit that did not keep it
    before = (quizzes_dir / "attention.yaml").read_text(encoding="utf-8")
    refused = _learn_command(out, quizzes_dir, "--write")
    assert refused.returncode == 1 and "grade the class again" in refused.stderr and not refused.stdout
    assert (quizzes_dir / "attention.yaml").read_text(encoding="utf-8") == before


def test_a_kit_score_the_quiz_no_longer_gives_holds_back_every_addition_to_its_question(tmp_path):
    """The record says what the class was given; an addition is judged against it (a quiz edited since the
    grading: the teacher grades again first)."""
    sources = _copy(tmp_path)
    kit = {"attention": {"att-07": [{"answer": "the decoder can look at all encoder states", "score": 0,
                                     "students": ["s9"]}]}}
    candidates, changed = learn(_review({("attention", "att-07"): [(2, [DECIDED])]}), sources, kit=kit)
    (candidate,) = [c for c in candidates if c.kind != "none"]
    assert not changed and candidate.refused == ("'the decoder can look at all encoder states' was scored 0 by "
                                                 "the kit for 1 student of this class, and would score 1")
