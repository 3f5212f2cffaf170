"""Grading a class end to end: the demo class, the outputs, and grader bugs kept apart from students."""
from __future__ import annotations

import csv
import json
import os

import pytest

from autograder import paths
from autograder.course import quiz_ids
from autograder.results import GRADER_ERROR, FAILED, PASSED
from tests.classroom import grade, solution_text, write_class
from tests.markdown_read import shown_text

pytestmark = pytest.mark.slow


@pytest.fixture(scope="session")
def demo_out(demo_graded):
    return demo_graded[0]


def read_gradebook(out):
    with open(out / "gradebook.csv", newline="", encoding="utf-8") as handle:
        return {row["student_id"]: row for row in csv.DictReader(handle)}


def test_demo_gradebook(demo_out):
    rows = read_gradebook(demo_out)
    assert set(rows) == {"ada", "grace", "linus", "margaret", "alan", "barbara lee"}
    columns = list(next(iter(rows.values())))
    assert columns[0] == "student_id" and columns[-3:] == ["score", "max_score", "pending"]
    assert {"dot_scores", "attention", "SingleHeadAttention", "saturation"} <= set(columns)
    assert {f"quiz:{quiz}" for quiz in quiz_ids()} <= set(columns)  # every quiz of the course
    assert rows["ada"]["score"] == rows["ada"]["max_score"]
    code = [c for c in columns[1:-3] if not c.startswith("quiz:")]
    assert all(rows["grace"][c] == rows["ada"][c] for c in code)  # the notebook scores as the .py
    assert rows["alan"]["score"] == "0"
    from autograder.quiz import load_quizzes

    top = load_quizzes(paths.QUIZZES_DIR)["attention"].max_score
    assert float(rows["ada"]["quiz:attention"]) == top and rows["ada"]["pending"] == "0"
    assert float(rows["margaret"]["quiz:attention"]) == 5  # three answers in a broken file, each read on its own
    assert 0 < float(rows["linus"]["quiz:attention"]) < top
    ada = rows["ada"]
    assert rows["linus"]["scaled_dot_scores"] != ada["scaled_dot_scores"]
    assert rows["linus"]["dot_scores"] == ada["dot_scores"]
    assert rows["margaret"]["attention"] == "0" and rows["margaret"]["dot_scores"] == "0"
    for row in rows.values():  # the question columns add up to the score
        total = sum(float(v) for k, v in row.items() if k not in ("student_id", "score", "max_score", "pending"))
        assert total == pytest.approx(float(row["score"]))


def test_demo_results_are_gradescope_json(demo_out):
    data = json.loads((demo_out / "results" / "linus.json").read_text(encoding="utf-8"))
    assert {"score", "max_score", "tests"} <= set(data)
    for test in data["tests"]:
        assert {"name", "score", "max_score", "output", "visibility", "tags"} <= set(test)
    assert data["score"] == pytest.approx(sum(t["score"] for t in data["tests"]))
    failed = [t for t in data["tests"] if t["score"] < t["max_score"]]
    assert failed and all(t["output"] for t in failed)


def test_demo_feedback_explains_mistakes(demo_out):
    linus = shown_text((demo_out / "feedback" / "linus.md").read_text(encoding="utf-8"))  # as a reader sees it
    assert "sqrt(d_k)" in linus and "FAILED" in linus
    margaret = shown_text((demo_out / "feedback" / "margaret.md").read_text(encoding="utf-8"))
    assert "no single_head_attention.py or single_head_attention.ipynb" in margaret
    assert "line 1 (att-01) was not valid YAML" in margaret  # a broken answer costs that answer only
    assert "att-01: |-" in margaret  # and the feedback shows how to write it
    grace = shown_text((demo_out / "feedback" / "grace.md").read_text(encoding="utf-8"))
    assert "magics" in grace
    assert (demo_out / "feedback" / "barbara lee.md").exists()


GRADERS = '''
import pytest
from autograder.grading.student import StudentFault

pytestmark = pytest.mark.assignment("attention_scores")


@pytest.mark.question("probe")
@pytest.mark.points(1)
def test_passes(student):
    """student code answers"""
    assert student.call("causal_mask", 2).shape == (2, 2)


@pytest.mark.question("probe")
@pytest.mark.points(2)
def test_student_mistake(student):
    """a student mistake"""
    raise StudentFault("wrong in the student's code")


@pytest.mark.question("probe")
@pytest.mark.points(3)
def test_grader_bug(student):
    """a bug in the grader"""
    return {}["missing"]


@pytest.mark.question("probe")
@pytest.mark.points(1)
def test_grader_sanity_check(student):
    """a grader's own assert that fails"""
    assert 1 + 1 == 3, "the reference disagrees with itself"
'''


def test_grader_bug_is_not_a_student_zero(tmp_path):
    graders = tmp_path / "graders"
    graders.mkdir()
    (graders / "test_probe.py").write_text(GRADERS)
    submissions = write_class(tmp_path / "class", {"ann": {"attention_scores.py": solution_text("attention_scores")}})
    result = grade(submissions, tmp_path / "out", workers=1, graders_dir=graders)["ann"]
    status = {t.test_id.split("::")[1]: t for t in result.tests}
    assert status["test_passes"].status == PASSED and status["test_passes"].score == 1
    assert status["test_student_mistake"].status == FAILED
    assert status["test_student_mistake"].output == "wrong in the student's code"
    bug = status["test_grader_bug"]
    assert bug.status == GRADER_ERROR and bug.score == 0 and "KeyError" in bug.grader_detail
    assert "not in your code" in bug.output and "KeyError" not in bug.output
    sanity = status["test_grader_sanity_check"]  # a bare assert is the grader's, not the student's
    assert sanity.status == GRADER_ERROR and "AssertionError" in sanity.grader_detail
    assert result.grader_errors == (bug, sanity)


def test_rerun_reuses_results_and_regrades_changes(tmp_path):
    submissions = write_class(tmp_path / "class", {
        "ann": {"attention_scores.py": solution_text("attention_scores")},
        "ben": {"attention_scores.py": solution_text("attention_scores")}})
    first = grade(submissions, tmp_path / "out", workers=1)
    state = tmp_path / "out" / ".state"
    stamp = {p.name: p.stat().st_mtime_ns for p in state.glob("*.json")}
    (submissions / "ben" / "attention_scores.py").write_text("syntax error here (")
    second = grade(submissions, tmp_path / "out", workers=1)
    assert {p.name: p.stat().st_mtime_ns for p in state.glob("*.json")}["ann.json"] == stamp["ann.json"]
    assert second["ann"] == first["ann"]
    assert second["ben"].score == 0 and first["ben"].score > 0


def test_untouched_stubs_and_missing_files_are_not_misconceptions(demo_out):
    from autograder.results import load
    from autograder.reporting.class_stats import diagnosed_mistakes, undiagnosed_failures

    state = demo_out / ".state"
    alan, margaret, linus = (load(state / f"{name}.json") for name in ("alan", "margaret", "linus"))
    graded = [t for t in alan.tests if t.max_score > 0]  # zero-point tests flag circumvention, they grade nothing
    assert graded and not any(t.attempted for t in graded)  # stubs raise NotImplementedError
    missing = [t for t in margaret.tests if t.assignment == "single_head_attention"]
    assert missing and not any(t.attempted for t in missing)
    handed_in = {p.stem for p in (paths.DEMO_CLASS_DIR / "linus").iterdir()}
    assert all(t.attempted for t in linus.tests if t.status == FAILED and t.assignment in handed_in)
    trio = [alan, margaret, linus]
    listed = {s for entry in undiagnosed_failures(trio) for s, _ in entry.students}
    listed |= {s for mistake in diagnosed_mistakes(trio) for s in mistake.made + mistake.possible}
    assert "alan" not in listed and "linus" in listed  # a real failure is either diagnosed or listed as not
    assert not any(entry.test.assignment == "single_head_attention" for entry in undiagnosed_failures([margaret]))


def test_a_teachers_pytest_options_do_not_reach_the_hidden_tests(tmp_path, monkeypatch):
    """PYTEST_ADDOPTS=-x in the teacher's shell would stop a student's hidden tests at the first failure."""
    code = solution_text("single_head_attention").replace("/ math.sqrt(K.shape[-1])", "/ K.shape[-1]")
    submissions = write_class(tmp_path / "class", {"dee": {"single_head_attention.py": code}})
    plain = grade(submissions, tmp_path / "plain", workers=1)["dee"]
    monkeypatch.setenv("PYTEST_ADDOPTS", "-x")
    with_options = grade(submissions, tmp_path / "with-options", workers=1)["dee"]
    assert FAILED in {t.status for t in plain.tests} and PASSED in {t.status for t in plain.tests}
    assert [(t.test_id, t.status, t.score) for t in with_options.tests] == \
        [(t.test_id, t.status, t.score) for t in plain.tests]
    monkeypatch.setenv("ATTNKIT_INPROCESS", "1")  # graded in this process: the teacher's variable is put back
    here = grade(submissions, tmp_path / "here", workers=1)["dee"]
    assert [(t.test_id, t.status) for t in here.tests] == [(t.test_id, t.status) for t in plain.tests]
    assert os.environ["PYTEST_ADDOPTS"] == "-x"
