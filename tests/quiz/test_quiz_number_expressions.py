"""A number answer written as arithmetic is scored by its value; one the reader cannot read as exactly one value
waits for a person, never 0.

Found by a new instructor's quiz (key 4, explanation "(6 - 3) + (6 - 5)"): that very expression scored 0
("3 is not within 0"), its brackets taken for asides, while "6-3+6-5" scored right. The generator writes
random arithmetic with an exact value (brackets, unary minus, spacing, x × · * and \\cdot, / ÷ and \\frac, powers,
roots, scientific notation), in a sentence or followed by "= value", and asks a question whose key is that value
(full points, by the kit) and one whose key is not (a recognised wrong value: 0, or the listed misconception's
points). Answers that state two different values, or a part the reader cannot read, wait for a person.
"""
from __future__ import annotations

import re
from dataclasses import replace
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from autograder.quiz import grade_question, load_quiz
from autograder.quiz.model import Misconception

from conftest import MINIMAL_QUIZ

NUMBER_SETTINGS = settings(max_examples=120, deadline=None)


@pytest.fixture(scope="module")
def question(tmp_path_factory):
    import yaml

    numeric = {**MINIMAL_QUIZ["questions"][3], "prompt": "How many heads does the layer use? A number or an "
               "arithmetic expression.", "answer": 4, "tolerance": 0, "explanation": "(6 - 3) + (6 - 5)"}
    data = {**MINIMAL_QUIZ, "objectives": ["Objective two."], "questions": [numeric]}
    path = tmp_path_factory.mktemp("quiz") / "heads.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return load_quiz(path).questions[0]


# --- arithmetic with an exact value -------------------------------------------------------------------------

TIMES = ["*", " * ", "×", " × ", "·", " · ", " x ", r" \cdot ", r" \times "]
DIVIDE = ["/", " / ", "÷", " ÷ "]
SPACE = ["", " "]


@st.composite
def leaf(draw) -> tuple[str, Fraction]:
    n = draw(st.integers(1, 12))
    form = draw(st.sampled_from(["plain", "plain", "decimal", "scientific", "root", "power", "frac"]))
    if form == "decimal":
        return f"{n}.0", Fraction(n)
    if form == "scientific":
        return draw(st.sampled_from([f"{n}e0", f"{n * 10}e-1", f"{n}E+0"])), Fraction(n)
    if form == "root":
        roots = [f"sqrt({n * n})", f"√{n * n}", f"√({n * n})", rf"\sqrt{{{n * n}}}"]
        return draw(st.sampled_from(roots)), Fraction(n)
    if form == "power":
        k = draw(st.sampled_from([2, 3])) if n <= 5 else 2
        return draw(st.sampled_from([f"{n}^{k}", f"{n}**{k}", f"{n}{'²' if k == 2 else '³'}"])), Fraction(n) ** k
    if form == "frac":
        d = draw(st.integers(1, 4))
        fractions = [rf"\frac{{{n}}}{{{d}}}", rf"\dfrac{{{n}}}{{{d}}}", f"({n}/{d})"]
        return draw(st.sampled_from(fractions)), Fraction(n, d)
    return str(n), Fraction(n)


def _bracket(text: str, draw) -> str:
    inner = draw(st.sampled_from(SPACE))
    return f"({inner}{text}{inner})"


@st.composite
def expression(draw, depth: int = 2) -> tuple[str, Fraction, int]:
    """(text, exact value, precedence of its outermost operator: 3 atom, 2 product, 1 sum)."""
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        text, value = draw(leaf())
        return text, value, 3
    kind = draw(st.sampled_from(["+", "-", "*", "/", "neg"]))
    if kind == "neg":
        text, value, level = draw(expression(depth - 1))
        body = text if level == 3 and not text.startswith(("-", "−")) else _bracket(text, draw)
        return draw(st.sampled_from(["-", "−"])) + body, -value, 2
    (left, a, left_level), (right, b, right_level) = draw(expression(depth - 1)), draw(expression(depth - 1))
    if kind == "/" and b == 0:
        kind = "*"
    level = 1 if kind in "+-" else 2
    # a child is bracketed where the operator needs it, and sometimes where it does not
    # "3^2/2" is read as both (3^2)/2 and 3^(2/2) (students write "d_k^1/2" for a root): it waits, see below
    power_over = kind == "/" and re.search(r"\^\d+$", left)
    if left_level < level or left.startswith(("-", "−")) and kind != "+" or power_over \
            or draw(st.integers(0, 3)) == 0:
        left = _bracket(left, draw)
    if right_level <= level and (right_level < level or kind in "-/") or right.startswith(("-", "−")) \
            or draw(st.integers(0, 3)) == 0:
        right = _bracket(right, draw)
    gap = draw(st.sampled_from(SPACE))
    if kind == "+":
        return f"{left}{gap}+{gap}{right}", a + b, 1
    if kind == "-":
        return f"{left}{gap}-{gap}{right}", a - b, 1
    if kind == "*":
        return f"{left}{draw(st.sampled_from(TIMES))}{right}", a * b, 2
    return f"{left}{draw(st.sampled_from(DIVIDE))}{right}", a / b, 2


def _keyed(question, value: Fraction):
    return replace(question, answer=float(value), tolerance=0.0)


def _decimal(value: Fraction) -> str:
    if value.denominator in (1, 2, 4, 5, 8, 10):
        return f"{float(value):.12g}"
    return f"{value.numerator}/{value.denominator}"


# A sentence that says nothing beside the value, and "heads" (the prompt's own word) as a unit.
FRAMES = ["{}", "{}.", "The answer is {}", "the answer is {}.", "Answer: {}", "I got {}", "It is {}", "It's {}",
          "{} heads", "It equals {}", "The result is {}", "La réponse est {}", "A resposta é {}", "{} is the answer",
          "= {}"]


@st.composite
def written_value(draw):
    text, value, _ = draw(expression())
    if draw(st.booleans()) and any(c in text for c in "+-−*×·/÷^²³√\\x"):
        text = f"{text}{draw(st.sampled_from(SPACE))}={draw(st.sampled_from(SPACE))}{_decimal(value)}"
    return draw(st.sampled_from(FRAMES)).format(text), value


def _bounded(value: Fraction) -> bool:
    return abs(value) <= 10**5 and value.denominator <= 10**4


@NUMBER_SETTINGS
@given(written=written_value())
def test_arithmetic_equal_to_the_key_earns_the_points(question, written):
    text, value = written
    if not _bounded(value):
        return
    result = grade_question(_keyed(question, value), text)
    assert (result.score, result.pending) == (question.points, False), (text, float(value), result.feedback)


@NUMBER_SETTINGS
@given(written=written_value(), shift=st.sampled_from([Fraction(1), Fraction(-3), Fraction(1, 2), Fraction(7)]))
def test_arithmetic_not_equal_to_the_key_scores_what_the_quiz_says(question, written, shift):
    text, value = written
    if not _bounded(value):
        return
    wrong = _keyed(question, value + shift)
    result = grade_question(wrong, text)
    assert (result.score, result.pending) == (0.0, False), (text, float(value), result.feedback)
    listed = replace(wrong, misconceptions=(Misconception(answer=float(value), says="a listed slip", points=0.5),))
    result = grade_question(listed, text)
    assert (result.score, result.pending) == (0.5, False), (text, float(value), result.feedback)


@pytest.mark.parametrize("text", ["(6 - 3) + (6 - 5)", "(6-3) + (6-5)", "(6 - 3)+(6 - 5)", "( 6 - 3 ) + ( 6 - 5 )",
                                  "6-3+6-5", "3+1", "(2) + (2)", "(8) / (2)", "(1 + 1) * (1 + 1)", "- (-4)",
                                  "(6 - 3) + (6 - 5) = 4", "The answer is (6 - 3) + (6 - 5).", "2 x 2", "4 heads"])
def test_the_instructor_s_forms_earn_the_points(question, text):
    result = grade_question(question, text)
    assert (result.score, result.pending) == (question.points, False), (text, result.feedback)


# --- what cannot be read as exactly one value ---------------------------------------------------------------

UNREAD = ["bananas", "xyz", "d_v", "minus 1", "per head", "thousand", "plus one"]


@st.composite
def not_one_value(draw) -> tuple[str, list[Fraction]]:
    """An answer stating two different values, or a value and a part that cannot be read: (text, the values)."""
    (first, a, _), (second, b, _) = draw(expression(1)), draw(expression(1))
    if a == b:
        b = a + 1
        second = _decimal(b)
    shape = draw(st.sampled_from(["two", "two", "unread"]))
    if shape == "two":
        joint = draw(st.sampled_from([" or ", ", ", " = ", "; ", " (", " / maybe ", " and "]))
        return first + joint + second + (")" if joint == " (" else ""), [a, b]
    word = draw(st.sampled_from(UNREAD))
    return draw(st.sampled_from([f"{first} {word}", f"{word} {first}", f"{first}, {word}"])), [a]


@NUMBER_SETTINGS
@given(written=not_one_value(), which=st.integers(0, 1), off=st.sampled_from([Fraction(0), Fraction(5)]))
def test_an_answer_that_is_not_exactly_one_value_is_never_scored_zero_by_itself(question, written, which, off):
    text, values = written
    key = values[min(which, len(values) - 1)] + off
    if not all(_bounded(v) for v in values):
        return
    result = grade_question(_keyed(question, key), text)
    assert result.pending, (text, [float(v) for v in values], float(key), result.feedback)
    assert "could not read" in result.feedback or result.suggestion, result.feedback  # what was read


@pytest.mark.parametrize("text, key", [("(6 - 3) + (6 - 5) = 5", 4), ("(6 - 3) + (6 - 5) = 5", 5), ("3 or 4", 3),
                                       ("4 or 5", 6), ("0.5 (1/3)", 0.25), ("(1 + 1) (1 + 1)", 4),
                                       ("4 thousand", 4), ("3 4", 12), ("5, minus 1", 4),
                                       ("3^2/2", 4.5), ("3^2/2", 3), ("4 units", 4), ("1/sqrt(16) 0.25", 0.25)])
def test_what_the_reader_cannot_read_as_one_value_waits(question, text, key):
    result = grade_question(replace(question, answer=float(key)), text)
    assert result.pending, (text, result.feedback)


# --- the shipped questions: their keys written as arithmetic, with their constants ---------------------------

@pytest.fixture(scope="module")
def shipped_numeric(real_quizzes):
    return [q for quiz in real_quizzes.values() for q in quiz.questions if q.type == "numeric"]


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_a_shipped_key_written_as_arithmetic_earns_the_points_and_a_shifted_one_does_not(shipped_numeric, data):
    q = data.draw(st.sampled_from(shipped_numeric))
    key = Fraction(repr(q.answer))
    text, value, _ = data.draw(expression(1))
    rest = key - value
    named = [(name, v) for name, v in q.constants if v]
    rest_text = f"{rest.numerator}/{rest.denominator}" if rest.denominator != 1 else str(rest.numerator)
    if named and data.draw(st.booleans()):  # a constant by its name: d_k / d_k is 1
        name = data.draw(st.sampled_from(named))[0]
        rest_text = f"{rest_text} * {name} / {name}"
    sentence = data.draw(st.sampled_from([f for f in FRAMES if "heads" not in f]))  # no shipped prompt asks heads
    written = sentence.format(f"({text}) + ({rest_text})")
    result = grade_question(q, written)
    assert (result.score, result.pending) == (q.points, False), (q.id, written, result.feedback)
    shifted = written.replace(f"({text})", f"({text} + 1)", 1)
    result = grade_question(q, shifted)
    assert result.score < q.points, (q.id, shifted, result.feedback)
    assert not result.pending or result.suggestion, (q.id, shifted, result.feedback)


@pytest.mark.parametrize("text", ["4 because the mask hides two", "4 because the layer has four heads",
                                  "(6 - 3) + (6 - 5) since the mask hides one"])
def test_a_reason_beside_a_right_value_is_weighed_by_a_person(question, text):
    """A reason may be wrong ("64 because the variance is the standard deviation"): never credited by itself."""
    result = grade_question(question, text)
    assert result.pending and result.suggested_score == question.points, (text, result.feedback)
    assert "because" in result.suggestion or "since" in result.suggestion, result.suggestion


def test_a_reason_beside_a_wrong_value_leaves_it_wrong(question):
    result = grade_question(question, "5 because each head adds one")
    assert (result.score, result.pending) == (0.0, False), result.feedback
