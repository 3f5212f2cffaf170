"""The fault wall: nothing one student's code produces can cost the class its gradebook.

Text that comes from a student (printing, exception messages, file and folder names) may hold lone
surrogates, control characters or be huge; the trusted side makes it safe before storing or rendering
it. The sanitiser is property-tested on arbitrary text; the save and render path is tested end to end
through the real engine, with a class whose attackers print and raise unencodable text.
"""
from __future__ import annotations

import json
import os
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from autograder import paths
from autograder.results import (GRADER_ERROR, PASSED, StudentResult, TestResult, load, safe_result, safe_text,
                                save)
from autograder.reporting.outputs import write_outputs
from tests.classroom import grade, solution_text, write_class

SHA = "single_head_attention"
# any code point at all, lone surrogates and controls included
ANY_TEXT = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x10FFFF, exclude_categories=()))
NASTY = st.sampled_from(["\ud800", "\udfff", "\udcff", "\x00", "\x1b[2J", "\r", "\x7f", "\x85", "\u202e", "\u2066",
                         "\ufffe", "\U0010ffff", "é", "\n", "\t"])
MIXED = st.lists(st.one_of(ANY_TEXT, NASTY), max_size=20).map("".join)


def encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


@settings(max_examples=300, deadline=None)
@given(MIXED)
def test_safe_text_is_always_storable(text):
    safe = safe_text(text)
    assert encodable(safe)
    assert all(c in "\n\t" or unicodedata.category(c) not in ("Cc", "Cs") for c in safe)
    assert not set(safe) & set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
    assert safe_text(safe) == safe  # idempotent: loading and saving again changes nothing


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(exclude_categories=("Cc", "Cs", "Cf")), max_size=200))
def test_safe_text_keeps_ordinary_text(text):
    assert safe_text(text) == text


@settings(max_examples=50, deadline=None)
@given(st.integers(min_value=0, max_value=3_000_000), st.integers(min_value=10, max_value=100_000), NASTY)
def test_safe_text_bounds_size(size, limit, filler):
    safe = safe_text(filler * size, limit=limit)
    assert len(safe) <= limit


@settings(max_examples=100, deadline=None)
@given(MIXED, MIXED, MIXED)
def test_a_result_with_any_text_saves_and_loads(tmp_path_factory, printed, message, name):
    test = TestResult(test_id="a::t", name=name, assignment="a", question=name, score=0.0, max_score=1.0,
                      status="failed", output=message, grader_detail=message)
    result = StudentResult(student_id=name or "x", tests=(test,), notes=(message,), printed=printed)
    path = tmp_path_factory.mktemp("save") / "r.json"
    save(result, path)
    loaded = load(path)
    assert loaded == safe_result(result)
    assert loaded.score == result.score


def test_save_of_raw_surrogate_no_longer_raises(tmp_path):
    """The reproduction: a lone surrogate printed by a student used to make save() raise."""
    result = StudentResult("s", (), printed="before \ud800 after")
    save(result, tmp_path / "s.json")
    assert "before" in load(tmp_path / "s.json").printed


# ------------------------------------------------------------------------------------------------
# end to end: the real engine, with attackers in the class

SURROGATE_PRINT = solution_text(SHA) + '''
print("lone surrogate: \\ud800 and \\udfff, escape \\x1b[31mred\\x1b[0m, nul \\x00, bidi \\u202e")
'''
SURROGATE_RAISE = solution_text(SHA) + '''

_real = attention


def attention(Q, K, V, mask=None):
    raise ValueError("bad \\udc80 value \\x00\\x1b]0;title\\x07")
'''
SURROGATE_NAMES = solution_text(SHA) + '''
import sys
print(chr(0xD834) * 100_000)
sys.stdout.write("\\udbff" * 5000)


def été():
    return 1
'''


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("wall")
    students = {
        "honest": {f"{a}.py": solution_text(a) for a in paths.ASSIGNMENTS},
        "surrogate-print": {f"{SHA}.py": SURROGATE_PRINT},
        "surrogate-raise": {f"{SHA}.py": SURROGATE_RAISE},
        "surrogate-flood": {f"{SHA}.py": SURROGATE_NAMES},
        "twin": {f"{SHA}.py": solution_text(SHA)},
        "z-honest": {f"{a}.py": solution_text(a) for a in paths.ASSIGNMENTS},
        os.fsdecode(b"name-\xff\xfe-\x1b"): {f"{SHA}.py": solution_text(SHA)},  # a folder name in no encoding
    }
    write_class(root / "class", students)
    out = root / "out"
    results = grade(root / "class", out, workers=1)
    return results, out


def test_the_class_keeps_every_row(graded):
    results, _ = graded
    assert set(results) == {"honest", "surrogate-print", "surrogate-raise", "surrogate-flood", "twin", "z-honest",
                            "name-\\xff\\xfe-\\x1b"}
    for sid in ("honest", "z-honest"):
        assert all(t.status == PASSED for t in results[sid].tests), sid
    twin = {t.test_id: t.score for t in results["twin"].tests}
    for sid in ("surrogate-print", "surrogate-flood", "name-\\xff\\xfe-\\x1b"):
        assert {t.test_id: t.score for t in results[sid].tests} == twin, sid
    assert not any(r.grader_errors for r in results.values())


def test_student_text_is_stored_safely(graded):
    results, out = graded
    printed = results["surrogate-print"].printed
    assert "lone surrogate" in printed and "\ud800" not in printed and "\x1b" not in printed
    failed = [t for t in results["surrogate-raise"].tests if t.status != PASSED]
    assert failed and all(encodable(t.output) for t in failed)
    assert len(results["surrogate-flood"].printed) <= 16_384 + 200
    for state in (out / ".state").glob("*.json"):
        json.loads(state.read_text(encoding="utf-8"))


def test_every_report_renders(graded, tmp_path):
    results, _ = graded
    write_outputs(tmp_path, list(results.values()))
    for path in tmp_path.rglob("*"):
        if path.is_file():
            path.read_text(encoding="utf-8")
    assert (tmp_path / "gradebook.csv").read_text(encoding="utf-8").count("\n") >= len(results)


def test_a_grader_problem_with_one_student_is_that_students_row(tmp_path, monkeypatch):
    """Any unexpected failure while finishing one student becomes that student's grader-problem row."""
    from autograder.grading import plugin

    real = plugin.GradingPlugin._result

    def explode(self, student_id):
        if student_id == "unlucky":
            raise RuntimeError("a bug in the trusted side")
        return real(self, student_id)

    monkeypatch.setattr(plugin.GradingPlugin, "_result", explode)
    from autograder.grading.submissions import discover
    from autograder.grading.worker import run_shard
    from autograder.grading.runner import shipped_stubs
    from autograder.sandbox import ForkServer

    write_class(tmp_path / "class", {sid: {f"{SHA}.py": solution_text(SHA)} for sid in ("a", "unlucky", "z")})
    submissions = discover(tmp_path / "class", list(paths.ASSIGNMENTS), shipped_stubs())
    server = ForkServer()
    try:
        plugin_ = run_shard(submissions, tmp_path, server)
    finally:
        server.close()
    assert plugin_.finished == 3
    unlucky = load(tmp_path / "unlucky.json")
    assert unlucky.tests and all(t.status == GRADER_ERROR and t.score == 0 for t in unlucky.tests)
    assert "a bug in the trusted side" in "".join(t.grader_detail for t in unlucky.tests)
    assert all(t.status == PASSED for t in load(tmp_path / "z.json").tests if t.assignment == SHA)
