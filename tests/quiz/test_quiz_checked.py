"""Quiz files checked once (quiz/checked.py): a stamp lets a later run skip the checks only for the very text
that passed them, with the very code that checked it; every other text is checked in full."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from autograder.quiz import QuizFormatError, checked, load_quiz
from autograder.quiz import schema

from conftest import QUIZ_DIR

QUIZ_FILES = sorted(QUIZ_DIR.glob("*.yaml"))


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv(checked.ENV, str(folder))
    return folder


def outcome(path: Path, formulas: bool = False):
    """What loading gives: the Quiz (without where it was read from), or the problems it was refused for."""
    try:
        quiz = load_quiz(path, formulas=formulas)
    except QuizFormatError as exc:
        return ("refused", str(exc))
    return ("quiz", dataclasses.replace(quiz, source_path=None))


def refuse_checks(monkeypatch):
    def checked_again(data):
        raise AssertionError("the quiz was checked again")
    monkeypatch.setattr(schema, "quiz_schema_problems", checked_again)


@pytest.mark.parametrize("path", QUIZ_FILES, ids=lambda p: p.name)
def test_a_checked_file_is_not_checked_again_and_loads_the_same(path, cache, monkeypatch, tmp_path):
    copy = tmp_path / path.name
    copy.write_bytes(path.read_bytes())
    first = outcome(copy)
    assert first[0] == "quiz" and len(list((cache / "quiz-checked").iterdir())) == 1
    refuse_checks(monkeypatch)
    assert outcome(copy) == first


def test_an_edited_file_is_checked_in_full(cache, monkeypatch, tmp_path):
    copy = tmp_path / "quiz.yaml"
    text = QUIZ_FILES[0].read_text(encoding="utf-8")
    copy.write_text(text, encoding="utf-8")
    outcome(copy)
    assert "points: 1" in text
    copy.write_text(text.replace("points: 1", "points: -1", 1), encoding="utf-8")
    verdict, message = outcome(copy)
    assert verdict == "refused" and "got -1" in message


def test_a_changed_checker_or_library_checks_again(cache, monkeypatch, tmp_path):
    copy = tmp_path / "quiz.yaml"
    copy.write_bytes(QUIZ_FILES[0].read_bytes())
    outcome(copy)
    calls = []
    real = schema.quiz_schema_problems
    monkeypatch.setattr(schema, "quiz_schema_problems", lambda data: calls.append(1) or real(data))
    edited = tmp_path / "loader.py"
    edited.write_bytes(Path(checked.__file__).with_name("loader.py").read_bytes() + b"\n# edited\n")
    monkeypatch.setattr(checked, "_CHECKER_SOURCES", (*checked._CHECKER_SOURCES, edited))
    checked._checker_digest.cache_clear()
    try:
        outcome(copy)
        assert calls == [1], "an edited checker took the old checker's stamp"
        monkeypatch.setattr(checked, "_CHECKER_LIBRARIES", (*checked._CHECKER_LIBRARIES, "nbformat"))
        checked._checker_digest.cache_clear()
        outcome(copy)
        assert calls == [1, 1], "another library took the stamp made with the old set"
    finally:
        checked._checker_digest.cache_clear()


def test_a_full_check_vouches_for_a_lighter_one_and_not_the_other_way(cache, monkeypatch, tmp_path):
    copy = tmp_path / "quiz.yaml"
    copy.write_bytes(QUIZ_FILES[0].read_bytes())
    outcome(copy, formulas=False)
    calls = []
    real = schema.quiz_schema_problems
    monkeypatch.setattr(schema, "quiz_schema_problems", lambda data: calls.append(1) or real(data))
    outcome(copy, formulas=True)
    assert calls == [1], "formula misconceptions were never compared, yet the light stamp skipped them"
    other = tmp_path / "other.yaml"
    other.write_bytes(QUIZ_FILES[-1].read_bytes())
    outcome(other, formulas=True)
    outcome(other, formulas=False)
    assert calls == [1, 1]


def test_without_a_cache_or_with_one_that_cannot_be_written_every_load_checks(tmp_path, monkeypatch):
    copy = tmp_path / "quiz.yaml"
    copy.write_bytes(QUIZ_FILES[0].read_bytes())
    calls = []
    real = schema.quiz_schema_problems
    monkeypatch.setattr(schema, "quiz_schema_problems", lambda data: calls.append(1) or real(data))
    monkeypatch.setenv(checked.ENV, "")
    outcome(copy)
    outcome(copy)
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv(checked.ENV, str(blocker / "cache"))
    assert outcome(copy)[0] == "quiz"
    assert calls == [1, 1, 1]


def mutations():
    """Edits of a shipped quiz file as an author makes them: a line dropped, doubled, or one character
    changed, added or removed (most are still YAML; many still pass the checks, many do not)."""
    text = QUIZ_FILES[0].read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    line = st.integers(0, len(lines) - 1)
    at = st.integers(0, len(text) - 1)
    char = st.sampled_from(list("-: 0123456789abcxyz'\"[]{}#\n"))
    return st.one_of(
        line.map(lambda i: "".join(lines[:i] + lines[i + 1:])),
        line.map(lambda i: "".join(lines[:i + 1] + lines[i:])),
        st.tuples(at, char).map(lambda p: text[:p[0]] + p[1] + text[p[0] + 1:]),
        st.tuples(at, char).map(lambda p: text[:p[0]] + p[1] + text[p[0]:]),
        at.map(lambda i: text[:i] + text[i + 1:]),
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edited=mutations())
def test_a_stamp_never_changes_what_any_edit_of_a_file_loads_as(edited, tmp_path, monkeypatch):
    """Generated edits of a stamped file: loading with the cache gives exactly what loading without it
    gives (the same quiz, or the same refusal), whether or not the edit was itself loaded before."""
    copy = tmp_path / "quiz.yaml"
    monkeypatch.setenv(checked.ENV, str(tmp_path / "cache"))
    copy.write_bytes(QUIZ_FILES[0].read_bytes())
    outcome(copy)  # the original is stamped
    copy.write_text(edited, encoding="utf-8")
    with_cache = [outcome(copy), outcome(copy)]  # the second may use a stamp the first made
    monkeypatch.setenv(checked.ENV, "")
    without = outcome(copy)
    assert with_cache == [without, without]
