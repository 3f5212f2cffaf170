"""The diagnosis interface: the result model (and files written before it), and how a hidden test hands
diagnoses to it through StudentFault, graded by the real engine."""
from __future__ import annotations

import json

import pytest

from autograder.results import FAILED, FORMAT_VERSION, GRADER_ERROR, Diagnosis, StudentResult, load, save
from autograder.reporting.class_report import class_report_html
from autograder.reporting.feedback import feedback_markdown
from tests.classroom import grade, stub_text, write_class
from tests.report_classes import diagnosed_class

GRADERS = '''
import pytest
from autograder.results import Diagnosis
from autograder.grading.student import StudentFault

pytestmark = pytest.mark.assignment("attention_scores")
AFTER = Diagnosis("mask-after-softmax", "the mask is applied after the softmax",
                  "your weights equal those of masking after the softmax to 1e-6")
RENORM = Diagnosis("mask-after-softmax-renormalised", "the mask is applied after the softmax, then rows renormalised",
                   "your weights equal those of renormalised masking after the softmax to 1e-6")


@pytest.mark.question("probe")
@pytest.mark.tags("graph cut")
def test_diagnosed_when_raised(student):
    """a fault raised with its diagnosis"""
    student.call("causal_mask", 2)
    raise StudentFault("rows 2 and 3 sum to 0.6", diagnoses=(AFTER,))


@pytest.mark.question("probe")
def test_diagnosed_after_raising(student):
    """a fault that a diagnosis step caught, diagnosed, and raised again"""
    try:
        student.call("causal_mask", 2)
        raise StudentFault("row 0 sums to 0.4")
    except StudentFault as fault:
        fault.diagnoses = (AFTER, RENORM, AFTER)  # several matches, one repeated
        raise


@pytest.mark.question("probe")
def test_symptom_only(student):
    """no mistake model matched"""
    student.call("causal_mask", 2)
    raise StudentFault("entries [0, 1] and [1, 0] differ by 0.25")


@pytest.mark.question("probe")
def test_malformed_diagnosis(student):
    """a grader that attaches text instead of a Diagnosis"""
    student.call("causal_mask", 2)
    raise StudentFault("wrong", diagnoses=("mask-after-softmax",))


@pytest.mark.question("probe")
def test_not_attempted_part(student):
    """a stub: never diagnosed, whatever the grader attaches"""
    student.call("dot_scores", [[[1.0]]], [[[1.0]]])
'''


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("plumbing")
    graders = root / "graders"
    graders.mkdir()
    (graders / "test_probe.py").write_text(GRADERS, encoding="utf-8")
    handout = stub_text("attention_scores")
    student_file = handout.replace(  # causal_mask implemented, dot_scores still the stub
        "def causal_mask(T):", "def causal_mask(T):\n    import torch\n    return torch.ones(T, T).tril().bool()\n"
        "\ndef unused_causal_mask(T):", 1)
    assert student_file != handout
    submissions = write_class(root / "class", {"ann": {"attention_scores.py": student_file}})
    result = grade(submissions, root / "out", workers=1, graders_dir=graders)["ann"]
    return {t.test_id.split("::")[1]: t for t in result.tests}


def test_fault_carries_its_diagnosis_into_the_result(graded):
    test = graded["test_diagnosed_when_raised"]
    assert test.status == FAILED and test.output == "rows 2 and 3 sum to 0.6"
    assert test.diagnoses == (Diagnosis("mask-after-softmax", "the mask is applied after the softmax",
                                        "your weights equal those of masking after the softmax to 1e-6"),)
    assert test.tags == ("graph cut",)  # tags stay what the test targets, apart from the diagnosis


def test_diagnoses_set_after_raising_are_kept_once_each_in_order(graded):
    test = graded["test_diagnosed_after_raising"]
    assert test.status == FAILED and test.output == "row 0 sums to 0.4"
    assert [d.mistake for d in test.diagnoses] == ["mask-after-softmax", "mask-after-softmax-renormalised"]


def test_no_match_leaves_the_symptom_alone(graded):
    test = graded["test_symptom_only"]
    assert test.status == FAILED and test.diagnoses == () and "differ by 0.25" in test.output


def test_malformed_diagnosis_is_a_grader_problem_not_a_cause(graded):
    test = graded["test_malformed_diagnosis"]
    assert test.status == GRADER_ERROR and test.diagnoses == () and test.score == 0
    assert "StudentFault.diagnoses must be a tuple of Diagnosis" in test.grader_detail
    assert "not in your code" in test.output


def test_untouched_stub_is_not_attempted_and_not_diagnosed(graded):
    test = graded["test_not_attempted_part"]
    assert test.status == FAILED and not test.attempted and test.diagnoses == ()


# ---------- the result model: diagnoses, and result files written before them ----------

FORMAT_2_RESULT = {  # a result file as format 2 wrote it: no diagnoses, no unreadable
    "student_id": "old", "format_version": 2, "fingerprint": "abc", "isolation": "bwrap", "printed": "",
    "notes": [], "problems": [], "quizzes": [{"quiz_id": "q", "score": 1.0, "max_score": 2.0, "problem": None,
                                              "items": [{"question_id": "q-01", "score": 1.0, "max_score": 2.0,
                                                         "feedback": ""}]}],
    "tests": [{"test_id": "attention_scores::test_x", "name": "x works", "assignment": "attention_scores",
               "question": "dot_scores", "score": 0.0, "max_score": 2.0, "status": "failed", "output": "off by 1",
               "visibility": "visible", "tags": ["wrong transpose"], "grader_detail": "", "attempted": True}]}


def test_result_files_of_format_2_still_load(tmp_path):
    path = tmp_path / "old.json"
    path.write_text(json.dumps(FORMAT_2_RESULT), encoding="utf-8")
    old = load(path)
    assert old.tests[0].diagnoses == () and old.tests[0].tags == ("wrong transpose",) and old.unreadable == ()
    assert old.score == 1.0 and old.format_version == FORMAT_VERSION == 4
    assert "Failed for no diagnosed reason" in class_report_html([old]) and feedback_markdown(old)
    newer = dict(FORMAT_2_RESULT, format_version=FORMAT_VERSION + 1)
    with pytest.raises(ValueError, match="newer"):  # a later kit's file is regraded, never half-read
        StudentResult.from_dict(newer)


def test_results_with_diagnoses_round_trip(tmp_path):
    result = diagnosed_class()[1]
    save(result, tmp_path / "ben.json")
    assert load(tmp_path / "ben.json") == result
    assert json.loads((tmp_path / "ben.json").read_text())["tests"][3]["diagnoses"][0]["mistake"] == "mask-after-softmax"


@pytest.mark.parametrize("fields", [("Mask After", "t", "e"), ("mask_after", "t", "e"), ("", "t", "e"),
                                    ("mask-after", " ", "e"), ("mask-after", "t", ""), ("mask-after", "t", None)])
def test_a_diagnosis_needs_an_id_a_title_and_evidence(fields):
    with pytest.raises(ValueError):
        Diagnosis(*fields)
