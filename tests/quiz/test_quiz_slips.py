"""Code and formula answers with a slip (slips.py): never credit, but shown mended and grouped as one answer.

Generated from every code and maths question's accepted answers: each name of five letters or more with a
letter left out, two neighbouring letters swapped or a letter doubled (wherever that makes an unknown name
one slip from that name alone), and closing brackets left off the end. Every such sibling must read as the
accepted answer it came from, wait for a person, and share one review group with its siblings; a slip that
could stand for two names, or a bracket closed in the wrong place, claims nothing.
"""
from __future__ import annotations

import re

import pytest

from autograder.quiz import grade_question
from autograder.quiz.review import cluster
from autograder.quiz.slips import known_names, mend_text, mended_reading


@pytest.fixture(scope="module")
def questions(real_quizzes):
    return {q.id: q for quiz in real_quizzes.values() for q in quiz.questions}


def _formal(questions):
    return [q for q in questions.values() if q.code is not None or q.maths is not None]


def _slipped_names(name: str) -> set[str]:
    dropped = {name[:i] + name[i + 1:] for i in range(len(name))}
    swapped = {name[:i] + name[i + 1] + name[i] + name[i + 2:] for i in range(len(name) - 1)}
    doubled = {name[:i] + name[i] + name[i:] for i in range(len(name))}
    return (dropped | swapped | doubled) - {name}


def siblings(question) -> list[tuple[str, str]]:
    """(slipped answer, accepted answer it came from) for every accepted answer of the question."""
    from autograder.quiz.slips import _one_slip

    names = known_names(question)
    found = []
    for accepted in question.accepted:
        for name in sorted(set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", accepted))):
            if len(name) < 5:
                continue
            for slip in sorted(_slipped_names(name)):
                near = [n for n in names if len(n) >= 4 and _one_slip(slip, n)]
                if slip in names or near != [name] or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", slip):
                    continue
                found.append((re.sub(rf"\b{name}\b", slip, accepted, count=1), accepted))
        if accepted.rstrip().endswith(")"):
            found.append((accepted.rstrip()[:-1], accepted))
            found.append((accepted.rstrip().rstrip(")"), accepted))
    return found


def test_every_slip_of_an_accepted_answer_reads_as_that_answer(questions):
    checked = 0
    wrong = []
    for question in _formal(questions):
        for slipped, accepted in siblings(question):
            mended = mended_reading(question, slipped)
            checked += 1
            if mended is None or mended.misconception is not None or not mended.changes:
                wrong.append((question.id, slipped, mended))
            elif question.code is not None and mended.text.replace(" ", "") != accepted.replace(" ", ""):
                wrong.append((question.id, slipped, mended.text))
    assert checked > 100 and wrong == []


def test_a_slip_waits_for_a_person_and_its_siblings_share_one_group(questions):
    """Through grading (the sandbox runs the attribute slips: `F.sofmax` fails there, not in the parent)."""
    for qid in ("att-13", "sc-14", "att-01", "sc-10"):
        question = questions[qid]
        per_accepted: dict[str, list[str]] = {}
        for slipped, accepted in siblings(question)[:12]:
            per_accepted.setdefault(accepted, []).append(slipped)
        for accepted, slipped in per_accepted.items():
            results = {s: grade_question(question, s) for s in slipped}
            assert all(r.pending and r.score == 0 for r in results.values()), (qid, accepted)
            assert {r.meaning for r in results.values()} == {r.meaning for r in results.values() if r.meaning
                                                            and r.meaning.startswith("mended: ")}
            assert len({r.meaning for r in results.values()}) == 1
            assert all("it is the accepted answer" in r.suggestion for r in results.values())
            groups = cluster(list(results), meaning={s: r.meaning for s, r in results.items()})
            assert len(groups) == 1, (qid, groups)


def test_a_slip_of_a_listed_misconception_reads_as_that_misconception_not_as_it(questions):
    question = questions["att-13"]
    mended = mended_reading(question, "F.sofmax(scores, dim=1)")
    assert mended is not None and mended.misconception is not None
    assert "query axis" in question.misconceptions[mended.misconception].says
    slipped = grade_question(question, "F.softmax(scores, dim=1")
    listed = grade_question(question, "F.softmax(scores, dim=1)")
    assert slipped.pending and slipped.meaning.startswith("mended misconception: ")
    assert slipped.meaning != listed.meaning  # the teacher may charge for the slip: its own group


NAMES = frozenset({"F", "softmax", "score", "scores", "dim"})


@pytest.mark.parametrize("text", [
    "F.softmax(scored, dim=-1)",   # one slip from two names (score, scores)
    "F.sfotmx(scores, dim=-1)",    # two slips from softmax
    "F.softmax(sco, dim=-1)",      # a name under four letters
])
def test_what_is_not_one_possible_mending_is_left_alone(text):
    assert mend_text(text, NAMES) == (text, ())


def test_a_bracket_closed_in_the_wrong_place_is_not_a_slip_at_the_end():
    assert mend_text("F.softmax(scores], dim=-1)", NAMES) == ("F.softmax(scores], dim=-1)", ())
    assert mend_text("F.softmax(scores, dim=-1", NAMES) == ("F.softmax(scores, dim=-1)", ("`)` added at the end",))


def test_a_mending_into_something_else_than_an_answer_claims_nothing(questions):
    question = questions["att-13"]
    assert mended_reading(question, "F.sofmax(scores * 2, dim=-1)") is None  # no answer of the question
    assert mended_reading(question, "F.softmax(scores, dim=-1)") is None      # nothing to mend
    assert mended_reading(questions["att-04"], "projetcion, scoring") is None  # free text: meaning.py's job


def _sized_siblings(question):
    """An accepted answer times (a size of the first input set) / (that size read off an input): equal to the
    key on inputs of those sizes only. And each constant written as its value (`d_k` -> 4)."""
    spec = question.code
    found = []
    for accepted in question.accepted[:2]:
        for name, shape in spec.inputs.items():
            for axis, size in enumerate(shape):
                if size > 1:
                    found.append(f"({accepted}) * {size} / {name}.shape[{axis}]")
        for name, value in spec.constants.items():
            if re.search(rf"\b{name}\b", accepted):
                found.append(re.sub(rf"\b{name}\b", str(value), accepted))
    return found


def test_an_answer_that_writes_a_size_of_the_test_inputs_is_never_a_match(questions):
    """The second input set has other sizes: `/ 2` for `/ sqrt(d_k)` (d_k = 4 in the first), `* 4 /
    Q.shape[-1]`, `dim=scores.shape[0]` compute the key only on the first."""
    cases = [(q, text) for q in questions.values() if q.code is not None for text in _sized_siblings(q)]
    assert len(cases) > 10
    credited = [(q.id, text) for q, text in cases if grade_question(q, text).score == q.points]
    assert credited == []
    question = questions["att-01"]
    for written in ("softmax(QK^T/2)V", "softmax(Q @ K.transpose(-2, -1) / 2) @ V", "softmax(QK^T * 0.5)V"):
        assert grade_question(question, written).score < question.points, written
    assert grade_question(question, "softmax(Q @ K.mT / Q.shape[-1] ** 0.5) @ V").score == question.points


def _near_keys(question):
    """The key changed by less than float32's tolerance would see: an offset, a factor, a clamp or a rounding
    of an input, a rounding of the result."""
    found = []
    for accepted in question.accepted[:2]:
        found += [f"({accepted}) + 1e-6", f"({accepted}) * (1 + 1e-6)", f"torch.round({accepted}, decimals=6)"]
        for name in question.code.inputs:
            if re.search(rf"\b{name}\b", accepted):
                found += [re.sub(rf"\b{name}\b", f"{name}.clamp(-6, 6)", accepted, count=1),
                          re.sub(rf"\b{name}\b", f"torch.round({name}, decimals=5)", accepted, count=1)]
    return found


def test_an_answer_within_float32_s_tolerance_of_the_key_is_no_match(questions):
    """The second input set is float64, five times larger and compared tightly: clamps, offsets and roundings
    that float32 inputs hide are told apart, while every accepted answer still matches."""
    cases = [(q, text) for q in questions.values() if q.code is not None for text in _near_keys(q)]
    assert len(cases) > 20
    credited = [(q.id, text) for q, text in cases if grade_question(q, text).score == q.points]
    assert credited == []
    for question in (q for q in questions.values() if q.code is not None):
        for accepted in question.accepted:
            assert grade_question(question, accepted.replace(" ", "  ")).score == question.points, accepted


@pytest.mark.parametrize("written, right", [
    ("sqrt(d_k) + 1e-9", False), ("sqrt(d_k + 1e-12)", False), ("sqrt(d_k) * 1.0000001", False),
    ("d_k^0.5", True), ("d_k ** 0.50", True), ("d_k^(1/2)", True), ("(d_k**2)**0.25", True),
])
def test_a_formula_is_the_key_exactly_not_to_nine_digits(questions, written, right):
    question = questions["sc-10"]
    result = grade_question(question, written)
    assert (result.score == question.points and not result.pending) == right, result.feedback


@pytest.mark.parametrize("cut", [".detach()", ".data", ".detach().clone()"])
def test_an_answer_that_cuts_the_gradient_is_read_by_a_person(questions, cut):
    """`.detach()` or `.data` on any part of the key: the same values, but nothing trains through them."""
    for question in (q for q in questions.values() if q.code is not None):
        for accepted in question.accepted[:2]:
            for name in question.code.inputs:
                if re.search(rf"\b{name}\b", accepted):
                    written = re.sub(rf"\b{name}\b", f"{name}{cut}", accepted, count=1)
                    result = grade_question(question, written)
                    assert result.pending and ("stops the gradient" in result.feedback
                                               or "could not read" in result.feedback), (written, result.feedback)
            result = grade_question(question, f"({accepted}){cut}")
            assert result.pending, (accepted, result.feedback)
