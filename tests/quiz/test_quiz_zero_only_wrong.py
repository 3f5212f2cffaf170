"""0 only for a recognised wrong answer: an option or verdict answer the kit scores 0 by itself reads as exactly
one wrong choice; anything else (unseen tokens, signs, digits, several choices, a choice and a sign that may take
it back) goes to a person with what was read. Numbers and formulas that do not parse, likewise.

Answers are generated from material no reader lists (consonant strings, symbols of every Unicode class, numbers,
private and unassigned characters), alone or beside the question's own choices, for every shipped true/false
and multiple-choice question and for a quiz whose course answers in Italian and Portuguese.
"""
from __future__ import annotations

import unicodedata

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autograder.quiz import grade_question, load_quiz
from autograder.quiz.choices import MARKS, VERDICT_WORDS
from autograder.quiz.nonanswers import is_non_answer

from conftest import MINIMAL_QUIZ

# Words no reader knows: consonants only (no verdict word or slip of one; two letters or more, so no option id)
unseen_word = st.text(alphabet="bcdghjklmpqrxz", min_size=2, max_size=7)
unseen_sign = st.characters(categories=("So", "Sm", "Sk", "Sc", "Co", "Pd", "Po", "No", "Cn")).filter(
    lambda c: c not in MARKS)
unseen_number = st.integers(min_value=2, max_value=10**6).map(str) | st.floats(
    min_value=-1e6, max_value=1e6, allow_nan=False).map(lambda x: f"{x:g}").filter(lambda t: t not in ("0", "1"))
unseen_piece = unseen_word | unseen_sign | unseen_number | st.text(
    alphabet=st.characters(categories=("So", "Co")), min_size=1, max_size=3)
JOINTS = (" ", ", ", " - ", "? ", ": ", " / ", "")
unseen = st.lists(unseen_piece, min_size=1, max_size=3).flatmap(
    lambda pieces: st.lists(st.sampled_from(JOINTS), min_size=len(pieces), max_size=len(pieces)).map(
        lambda joints: "".join(j + p for j, p in zip(joints, pieces)).strip() or pieces[0]))


def _italian_portuguese_quiz(tmp_path_factory):
    data = {**MINIMAL_QUIZ, "languages": ["en", "it", "pt"], "objectives": ["Objective one."],
            "questions": MINIMAL_QUIZ["questions"][:2]}
    path = tmp_path_factory.mktemp("quiz") / "itpt.yaml"
    import yaml
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return load_quiz(path)


@pytest.fixture(scope="module")
def choice_questions(real_quizzes, tmp_path_factory):
    extra = _italian_portuguese_quiz(tmp_path_factory)
    return [q for quiz in [*real_quizzes.values(), extra] for q in quiz.questions
            if q.type in ("multiple_choice", "true_false")]


def _right_forms(q) -> list[str]:
    if q.type == "multiple_choice":
        return [q.answer, f"({q.answer})", q.option(q.answer).text]
    words = [w for lang in q.languages for w in VERDICT_WORDS[lang][q.answer] if len(w) > 1]
    return [*words[:6], *(m for m, v in MARKS.items() if v == q.answer), "1" if q.answer else "0"]


def _wrong_forms(q) -> list[str]:
    if q.type == "multiple_choice":
        return [o.id for o in q.options if o.id != q.answer]
    words = [w for lang in q.languages for w in VERDICT_WORDS[lang][not q.answer] if len(w) > 1]
    return [*words[:6], *(m for m, v in MARKS.items() if v != q.answer), "0" if q.answer else "1"]


def _silent_zero(q, answer) -> bool:
    item = grade_question(q, answer)
    return item.score == 0 and not item.pending and not is_non_answer(answer)


SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@SETTINGS
@given(data=st.data(), answer=unseen)
def test_unseen_tokens_and_signs_never_score_zero(choice_questions, data, answer):
    q = data.draw(st.sampled_from(choice_questions))
    assert not _silent_zero(q, answer), (q.id, answer, grade_question(q, answer).feedback)


@SETTINGS
@given(data=st.data(), around=unseen, before=st.booleans(), joint=st.sampled_from(JOINTS[:3]))
def test_the_right_choice_beside_unseen_material_never_scores_zero(choice_questions, data, around, before, joint):
    q = data.draw(st.sampled_from(choice_questions))
    right = data.draw(st.sampled_from(_right_forms(q)))
    answer = f"{around}{joint}{right}" if before else f"{right}{joint}{around}"
    assert not _silent_zero(q, answer), (q.id, answer, grade_question(q, answer).feedback)


@SETTINGS
@given(data=st.data(), joint=st.sampled_from((" ", " and ", ", ", " / ", " ")), right_first=st.booleans())
def test_a_right_and_a_wrong_choice_together_go_to_a_person(choice_questions, data, joint, right_first):
    """"true ✗", "✓ false", "1 falso", "(b) a": said both ways, neither 0 nor full credit by the kit. Letters
    of two options ("a and b", "b / c") are the one exception: an answer naming several options scores 0, as
    every labelled set's teacher scores it."""
    q = data.draw(st.sampled_from(choice_questions))
    right, wrong = data.draw(st.sampled_from(_right_forms(q)[:2] + _right_forms(q)[-3:])), data.draw(
        st.sampled_from(_wrong_forms(q)))
    answer = f"{right}{joint}{wrong}" if right_first else f"{wrong}{joint}{right}"
    item = grade_question(q, answer)
    several = item.score == 0 and item.feedback.startswith("Incorrect: you named (")
    assert item.pending or (several and q.type == "multiple_choice"), (q.id, answer, item.score, item.feedback)


@pytest.mark.parametrize("answer, value", [("✓", True), ("✔", True), ("✅", True), ("1", True), (1, True),
                                           ("✗", False), ("✘", False), ("❌", False), ("0", False), (0, False),
                                           ("✓.", True), ("✗ I think", False), ("probably ✓", True), ("1.", True), ("0!", False),
                                           ("1, because the weights sum to 1", None)])
def test_marks_and_digits_read_as_verdicts(choice_questions, answer, value):
    for q in [q for q in choice_questions if q.type == "true_false"][:6]:
        item = grade_question(q, answer)
        if value is None:  # a reason: read as any reason is, never a silent 0 of a right verdict
            assert item.pending or item.score == (q.points if q.answer else 0), (q.id, answer, item.feedback)
            continue
        assert not item.pending and item.score == (q.points if value == q.answer else 0), (q.id, answer)


@pytest.mark.parametrize("answer, value", [
    ("vero", True), ("è vero", True), ("non è vero", False), ("falso", False), ("sì", True), ("sbagliato", False),
    ("verdadeiro", True), ("é verdade", True), ("não é verdade", False), ("não", False), ("sim", True),
    ("errado", False), ("non è falso", True), ("penso che sia vero", None), ("acho que é falso", False)])
def test_italian_and_portuguese_verdicts_where_the_course_lists_them(choice_questions, answer, value):
    q = next(q for q in choice_questions if q.type == "true_false" and "it" in q.languages)
    item = grade_question(q, answer)
    if value is None:  # a sentence the reader does not take apart: a person reads it, never 0
        assert item.pending, (answer, item.feedback)
    else:
        assert not item.pending and item.score == (q.points if value == q.answer else 0), (answer, item.feedback)
    for other in [q for q in choice_questions if q.type == "true_false" and "it" not in q.languages][:4]:
        # a course that does not list them: read as a listed language's word where it is one ("sì", "falso"),
        # else by a person; never against its meaning
        item = grade_question(other, answer)
        assert item.pending or (value is not None and item.score == (other.points if value == other.answer else 0))


@pytest.mark.parametrize("answer", [True, False, ["a"], {"x": 1}, 2.5])
def test_answers_of_another_kind_go_to_a_person(real_quizzes, answer):
    """A YAML yes/no, a list or a number where an option, a formula or text is asked: never a silent 0."""
    for quiz in real_quizzes.values():
        for q in quiz.questions:
            if q.type == "multiple_choice" or (q.type == "short_answer" and q.grading != "code"):
                assert not _silent_zero(q, answer), (q.id, answer, grade_question(q, answer).feedback)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), answer=unseen)
def test_numbers_and_formulas_that_do_not_parse_wait(real_quizzes, data, answer):
    questions = [q for quiz in real_quizzes.values() for q in quiz.questions
                 if q.type == "numeric" or (q.type == "short_answer" and q.grading == "maths")]
    q = data.draw(st.sampled_from(questions))
    if any(unicodedata.category(c)[0] == "N" for c in answer):
        return  # a number may parse, and then be a wrong one
    assert not _silent_zero(q, answer), (q.id, answer, grade_question(q, answer).feedback)
