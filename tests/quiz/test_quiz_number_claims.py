"""A number answer earns its points without a person only when everything it states agrees: the number, the
formula it came from, the aside beside it ("0.25 (1/4)"). A wrong claim beside a right number, or a part
that cannot be read, goes to a person; a right number beside a wrong one is never scored 0 by itself."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from autograder.grading.quizzes import load_class_quizzes
from autograder.quiz import grade_question
from autograder.quiz.equivalence import read_number

NUMERIC = [q for quiz in load_class_quizzes() for q in quiz.questions if q.type == "numeric"]
JOINTS = [" ({})", ", i.e. {}", " = {}", ", that is {}", " because {}", "; {}", " (= {})", ", so {}"]


def right_forms(value: float) -> list[str]:
    forms = [f"{value:g}", f"{value:.4f}".rstrip("0"), f"~{value:g}"]
    if 0 < value < 1:
        forms.append(f"{value * 100:g}%")
    if 0 < value < 1 and abs(1 / value - round(1 / value)) < 1e-9:
        n = round(1 / value)
        forms += [f"1/{n}", f"1/sqrt({n * n})", f"{n * n} ** -0.5"]
    if value > 1 and abs(value - round(value)) < 1e-9:
        forms += [f"{round(value)}", f"sqrt({round(value) ** 2})", f"{round(value) // 2} * 2" if round(value) % 2 == 0
                  else f"{round(value)} * 1"]
    return forms


def wrong_forms(value: float) -> list[str]:
    return [f"{value * 2:g}", f"{value + 1:g}", f"1/{value * 4:g}" if value else "3", "1/sqrt(d_model)", "std 64",
            f"{value:g} * 8", "sqrt(d_k) / 7"]


def drawn(question, data, first, second, joints=JOINTS) -> tuple[str, str]:
    """`first` joined to `second` (forms of the question's answer), and the second part on its own."""
    one = data.draw(st.sampled_from(first(question.answer)))
    other = data.draw(st.sampled_from(second(question.answer)))
    return one + data.draw(st.sampled_from(joints)).format(other), other


@settings(max_examples=250, deadline=None)
@given(question=st.sampled_from(NUMERIC), data=st.data())
def test_a_right_number_beside_a_wrong_claim_is_never_credited_by_itself(question, data):
    text, claim = drawn(question, data, right_forms, wrong_forms)
    value = read_number(claim, dict(question.constants))
    if value is not None and abs(value - question.answer) <= question.tolerance:
        return  # the "wrong" claim happens to be right for this question
    result = grade_question(question, text)
    assert result.pending or result.score < question.points, (text, result.feedback)


@settings(max_examples=250, deadline=None)
@given(question=st.sampled_from(NUMERIC), data=st.data())
def test_a_right_number_beside_a_wrong_one_is_never_scored_zero_by_itself(question, data):
    text, _ = drawn(question, data, wrong_forms, right_forms)
    result = grade_question(question, text)
    assert result.pending or result.score > 0, (text, result.feedback)


@settings(max_examples=150, deadline=None)
@given(question=st.sampled_from(NUMERIC), data=st.data())
def test_a_right_number_with_its_own_restatement_earns_the_points(question, data):
    text, _ = drawn(question, data, right_forms, right_forms, [" ({})", " = {}", ", i.e. {}", " (= {})"])
    result = grade_question(question, text)
    assert (result.score, result.pending) == (question.points, False), (text, result.feedback)


@pytest.mark.parametrize("text, stated, right", [
    ("1/sqrt(d_k) with d_k = 16", "att-11", True), ("d_k^-0.5 where d_k = 16", "att-11", True),
    ("1/sqrt(d_k), d_k = 16", "att-11", True), ("1/sqrt(d_k) with d_k = 64", "att-11", False),
    ("1/sqrt(d_k) with d_k = 64", "sc-11", True), ("d_k ** -0.5 with d_k = 16", "sc-11", False),
])
def test_an_expression_with_the_value_it_gives_its_name_is_read_as_a_teacher_reads_it(text, stated, right):
    question = next(q for q in NUMERIC if q.id == stated)
    result = grade_question(question, text)
    assert (result.score == question.points and not result.pending) is right, result.feedback


@pytest.mark.parametrize("text, value", [("one-quarter", 0.25), ("one-eighth", 0.125), ("a quarter", 0.25),
                                         ("three-quarters", 0.75), ("one-sixteenth", 0.0625), ("one half", 0.5)])
def test_a_fraction_in_words_with_a_hyphen_is_that_fraction(text, value):
    assert read_number(text) == pytest.approx(value)


WORD_CLAIMS = ["the standard deviation", "the same as the variance of each component", "one per component",
               "the number of keys", "because the softmax sums to one", "the mean of the scores", "per head"]
HEDGES = ["I think", "not sure", "maybe", "probably"]


@settings(max_examples=200, deadline=None)
@given(question=st.sampled_from(NUMERIC), data=st.data())
def test_words_beside_a_right_number_are_weighed_by_a_person_and_hedges_are_not(question, data):
    """A claim in words beside the right number ("64, the standard deviation") is never credited by itself;
    a hedge beside it ("0.25, I think") is graded as the number."""
    number = data.draw(st.sampled_from(right_forms(question.answer)))
    joint = data.draw(st.sampled_from([", ", "; ", " - ", ": ", ", which is "]))
    claim = grade_question(question, number + joint + data.draw(st.sampled_from(WORD_CLAIMS)))
    assert claim.pending or claim.score < question.points, claim.feedback
    hedge = data.draw(st.sampled_from(HEDGES))
    hedged = grade_question(question, f"{number}, {hedge}")
    assert (hedged.score, hedged.pending) == (question.points, False), (f"{number}, {hedge}", hedged.feedback)


# What a sentence or a keyboard does to a number answer: a full stop at its end, capitals (caps lock, a
# phone's first letter), spacing. Found by the review class (every "0.25." waited for a person).
SENTENCE_FORMS = [lambda t: t + ".", str.upper, str.capitalize, lambda t: t.lower() + ".", lambda t: f" {t}  "]


def _labelled_numbers() -> list[tuple[object, str]]:
    import yaml
    from pathlib import Path

    by_id = {q.id: q for q in NUMERIC}
    found = []
    for path in sorted(Path(__file__).parent.glob("*_answers.yaml")):
        for qid, rows in (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).items():
            found += [(by_id[qid], row["answer"]) for row in rows or []
                      if qid in by_id and isinstance(row, dict) and isinstance(row.get("answer"), str)]
    return found


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_a_sentence_around_a_number_answer_changes_nothing(data):
    """Every labelled number answer, and generated right and wrong forms of every key, graded the same with a
    full stop, in capitals or with spaces as written bare (score and whether a person reads it)."""
    question = data.draw(st.sampled_from(NUMERIC))
    labelled = [a for q, a in LABELLED_NUMBERS if q is question]
    text = data.draw(st.sampled_from(labelled + right_forms(question.answer) + wrong_forms(question.answer)))
    written = data.draw(st.sampled_from(SENTENCE_FORMS))(text)
    bare, changed = grade_question(question, text), grade_question(question, written)
    assert (changed.score, changed.pending) == (bare.score, bare.pending), (question.id, text, written)


LABELLED_NUMBERS = _labelled_numbers()


def test_an_ellipsis_and_case_that_names_a_constant_are_not_a_sentence_s_doing():
    from dataclasses import replace

    question = next(q for q in NUMERIC if q.answer == 0.25)
    assert not grade_question(question, "0.25.").pending
    assert grade_question(question, "0.25..").pending  # an ellipsis is no full stop: a person reads it
    assert grade_question(question, "1/SQRT(16)").score == question.points
    cased = replace(question, constants=(("D", 16.0), ("d", 4.0)))  # D and d are two names: case is meaning
    assert grade_question(cased, "1/SQRT(D)").pending and grade_question(cased, "1/sqrt(D)").score == question.points


BINDINGS = [" with {} = {}", ", {} = {}", " for {} = {}", " where {} = {}"]


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_a_size_given_beside_a_number_must_be_the_question_s(data):
    """"0.25 with d_k = 64": a size the answer states beside its number is a claim; where it is not the
    question's own, the answer never keeps full credit by itself (a person reads it). The question's own value
    changes nothing."""
    question = data.draw(st.sampled_from([q for q in NUMERIC if q.constants]))
    name, value = data.draw(st.sampled_from(list(question.constants)))
    form = data.draw(st.sampled_from(right_forms(question.answer)))
    joint = data.draw(st.sampled_from(BINDINGS))
    other = data.draw(st.sampled_from([value * 4, value / 4, value + 1, 3.0]))
    wrong = grade_question(question, form + joint.format(name, f"{other:g}"))
    assert wrong.pending or wrong.score < question.points, (form, joint, other, wrong.feedback)
    same = grade_question(question, form + joint.format(name, f"{value:g}"))
    assert (same.score, same.pending) == (question.points, False), (form, joint, same.feedback)


def test_a_name_the_question_does_not_have_beside_a_number_is_read_by_a_person():
    question = next(q for q in NUMERIC if q.answer == 0.125)
    assert grade_question(question, "0.125 with T_k = 4").pending
    assert grade_question(question, "1/sqrt(x) with x = 64").score == question.points  # the name is used
