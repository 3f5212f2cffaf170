"""A quiz cannot contradict itself (autograder/quiz/contradictions.py).

Generated from the course's own quizzes (and the new-lesson example's, one question of each type): for every
question, entries that read the same as its key, an accepted answer or a listed misconception, rewritten the
way a grader reads them as equal (the option itself, a number within the tolerance, an equal formula, the same
code respaced or computing the same tensors, the same text recased or with a term's other phrase), are added as
misconceptions (or as accepted answers equal to a misconception); each must be refused in one sentence naming
the question and both entries. The quizzes as shipped still load.
"""
from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from autograder.quiz import QuizFormatError
from autograder.quiz.loader import quiz_from_data

ROOT = Path(__file__).resolve().parents[2]
QUIZ_FILES = sorted((ROOT / "quizzes").glob("*.yaml")) + [ROOT / "tests" / "new_course" / "temperature.yaml"]


def _data(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def _rewrites(raw: dict, languages: tuple[str, ...] = ("en", "fr", "es", "de")) -> list[tuple[str, object]]:
    """(what, entry) pairs: entries a grader reads as this question's key or first accepted answer."""
    if raw["type"] == "multiple_choice":
        return [("the key's option", raw["answer"])]
    if raw["type"] == "numeric":
        key, tol = raw["answer"], raw["tolerance"]
        return [("the key", key), ("the key within half the tolerance", key + tol / 2),
                ("the key as an expression", f"2 * {key!r} / 2")]
    if raw.get("maths"):
        key = raw["maths"]["answer"]
        return [("the key times one", f"({key}) * 1"), ("the key twice inverted", f"1 / (1 / ({key}))")]
    if raw.get("code"):
        key = raw["code"]["answer"]
        return [("the key respaced", " ".join(key.replace(",", " ,").split()) + " "), ("the key", key)]
    if raw["type"] == "short_answer":
        first = raw["accepted"][0]
        out = [("an accepted answer recased", first.upper() + "!")]
        swapped = _other_phrase(first, raw.get("terms") or {}, languages)
        if swapped:
            out.append(("an accepted answer with a term's other phrase", swapped))
        return out
    return []


def _other_phrase(text: str, terms: dict, languages: tuple[str, ...]) -> str:
    """The accepted answer with one phrase replaced by another phrase of the same term, kept only where the
    grader reads both as the same terms (a phrase inside a longer one of another term is not swapped)."""
    from autograder.quiz.meaning import lexicon, read_meaning

    lex = lexicon(tuple((k, tuple(v)) for k, v in terms.items()), languages)
    want = read_meaning(text, lex)
    for phrases in terms.values():
        plain = [p for p in phrases if "*" not in p]
        for phrase in plain:
            for other in plain:
                swapped = f" {text} ".replace(f" {phrase} ", f" {other} ", 1).strip()
                if other != phrase and swapped != text:
                    got = read_meaning(swapped, lex)
                    if not got.unknown and got.terms == want.terms:
                        return swapped
    return ""


CASES = [(path.name, raw["id"], what, entry) for path in QUIZ_FILES for raw in _data(path)["questions"]
         for what, entry in _rewrites(raw, tuple(_data(path).get("languages") or ("en", "fr", "es", "de")))]


def _with(path_name: str, qid: str, change) -> dict:
    path = next(p for p in QUIZ_FILES if p.name == path_name)
    data = copy.deepcopy(_data(path))
    data["questions"] = [q for q in data["questions"] if q["id"] == qid]  # one question: the check is per question
    data.pop("objectives", None)
    change(data["questions"][0])
    return data


def _refused(data: dict, qid: str, *entries: str, code: bool = False) -> str:
    with pytest.raises(QuizFormatError) as failure:
        quiz_from_data(data, code=code)
    lines = [line for line in str(failure.value).splitlines() if f"question {qid}:" in line]
    assert any(all(repr(e) in line for e in entries) for line in lines), (entries, str(failure.value))
    return str(failure.value)


@pytest.mark.parametrize("quiz_file", [p.name for p in QUIZ_FILES])
def test_the_shipped_quizzes_contradict_nothing(quiz_file):
    quiz_from_data(_data(next(p for p in QUIZ_FILES if p.name == quiz_file)))


def test_every_answer_type_is_generated():
    kinds = {(raw["type"], bool(raw.get("maths")), bool(raw.get("code")))
             for path in QUIZ_FILES for raw in _data(path)["questions"] if _rewrites(raw)}
    assert {("multiple_choice", False, False), ("numeric", False, False), ("short_answer", True, False),
            ("short_answer", False, True), ("short_answer", False, False)} <= kinds


@pytest.mark.parametrize("quiz_file, qid, what, entry", CASES, ids=lambda v: str(v)[:40])
def test_a_misconception_that_reads_as_the_key_is_refused(quiz_file, qid, what, entry):
    def add(raw):
        raw.setdefault("misconceptions", []).append({"answer": entry, "says": "contradiction"})
    _refused(_with(quiz_file, qid, add), qid, entry)


@pytest.mark.parametrize("quiz_file, qid, index", [  # the first and last misconception of each question
    (path.name, raw["id"], i) for path in QUIZ_FILES for raw in _data(path)["questions"]
    for i in sorted({0, len(raw.get("misconceptions", [])) - 1}) if raw.get("misconceptions")])
def test_a_misconception_listed_twice_or_accepted_is_refused(quiz_file, qid, index):
    """A listed misconception, rewritten as the grader reads it equal, added again (the second could never
    match) and added to the accepted answers (a wrong answer would score full)."""
    raw = next(q for q in _data(next(p for p in QUIZ_FILES if p.name == quiz_file))["questions"] if q["id"] == qid)
    listed = raw["misconceptions"][index]["answer"]
    same = listed + raw["tolerance"] / 4 if isinstance(listed, (int, float)) and raw["type"] == "numeric" \
        else f"({listed}) * 1" if raw.get("maths") else f" {listed} " if isinstance(listed, str) else listed
    _refused(_with(quiz_file, qid, lambda q: q["misconceptions"].append({"answer": same, "says": "again"})),
             qid, listed, same)
    if raw["type"] == "short_answer":
        _refused(_with(quiz_file, qid, lambda q: q["accepted"].append(same)), qid, listed, same)


def test_verdict_words_listed_both_ways_are_refused(minimal_quiz_data):
    for extra, word in (({"true": ["jein"], "false": ["jein"]}, "jein"), ({"true": ["falsch"]}, "falsch")):
        data = {**copy.deepcopy(minimal_quiz_data), "verdict_words": extra}
        with pytest.raises(QuizFormatError, match=f"'verdict_words' lists '{word}'"):
            quiz_from_data(data)
    quiz_from_data({**copy.deepcopy(minimal_quiz_data), "verdict_words": {"true": ["vero"], "false": ["falso"]}})


def test_code_that_computes_a_misconception_or_the_key_is_refused_when_run():
    """In the sandbox (`python -m autograder.quiz check`): a misconception computing exactly the key (a right
    answer would score 0), and an accepted answer computing exactly a listed misconception, in one quiz."""
    data = _data(ROOT / "quizzes" / "attention_score.yaml")
    raw = next(q for q in data["questions"] if q.get("code"))
    data["questions"] = [raw]
    data.pop("objectives", None)
    key, listed = raw["code"]["answer"], "K @ Q.transpose(-2, -1)"
    assert listed in [m["answer"] for m in raw["misconceptions"]]
    raw["misconceptions"].append({"answer": f"({key}) * 1.0", "says": "the key itself"})
    raw["accepted"].append(f"({listed}) + 0.0")
    message = _refused(data, raw["id"], key, f"({key}) * 1.0", code=True)
    assert repr(listed) in message and repr(f"({listed}) + 0.0") in message
    assert "compute the same tensors" in message and len(message.splitlines()) == 2


@pytest.mark.parametrize("quiz_file, qid", [(path.name, raw["id"]) for path in QUIZ_FILES
                                            for raw in _data(path)["questions"] if raw.get("scored")][:3])
def test_a_misconception_that_reads_as_a_scored_answer_is_refused(quiz_file, qid):
    def add(raw):
        raw["misconceptions"] = [{"answer": raw["scored"][0]["answer"].upper(), "says": "also a partial answer"}]
    data = _with(quiz_file, qid, add)
    listed = data["questions"][0]["misconceptions"][0]["answer"]
    assert "'scored[0]'" in _refused(data, qid, listed)
