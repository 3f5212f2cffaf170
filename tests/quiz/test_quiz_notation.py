"""Reading answers in many notations, safely: the parent parses and checks, never evaluates."""
from __future__ import annotations

import pytest

from autograder.quiz.equivalence import compare_formula, read_number
from autograder.quiz.notation import Unreadable, UnknownName, Vocabulary, read_expression

SCALAR = Vocabulary(frozenset({"d_k", "d_model"}), {"dk": "d_k", "key dimension": "d_k"})
TENSOR = Vocabulary(frozenset({"Q", "K", "V", "d_k"}), {"q": "Q", "k": "K", "v": "V"},
                    frozenset({"softmax", "score", "sqrt"}), frozenset({"torch", "F", "nn", "math"}))


@pytest.mark.parametrize("text", [
    "sqrt(d_k)", "√dₖ", "\\sqrt{d_k}", "d_k^(1/2)", "d_k^1/2", "d_k ** 0.5", "(d_k)^{0.5}", "square root of the key dimension",
    "the square root of d_k.", "sqrt dk", "$\\sqrt{d_k}$", "exp(log(d_k)/2)", "d_k/sqrt(d_k)", "by √d_k",
    "it divides the scores by sqrt(d_k)", "multiply by 1/sqrt(d_k)", "\\frac{d_k}{\\sqrt{d_k}}",
])
def test_formulas_equal_to_sqrt_dk(text):
    assert compare_formula(text, "sqrt(d_k)", SCALAR, "divisor").equal is True


@pytest.mark.parametrize("text", ["d_k", "sqrt(d_model)", "1/sqrt(d_k)", "scaling the scores by sqrt(d_k)",
                                  "sqrt(2 d_k)", "d_k^2", "sqrt(d_k) + 1"])
def test_formulas_not_equal_to_sqrt_dk(text):
    assert compare_formula(text, "sqrt(d_k)", SCALAR, "divisor").equal is False


@pytest.mark.parametrize("text, source", [
    ("softmax(QK^T/sqrt(d_k))V", "softmax(Q @ K.mT / sqrt(d_k)) @ V"),
    ("softmax(QKᵀ/√d_k) V", "softmax(Q @ K.mT / sqrt(d_k)) @ V"),
    ("$\\mathrm{softmax}\\left(\\frac{QK^{\\top}}{\\sqrt{d_k}}\\right)V$", "softmax(Q @ K.mT / sqrt(d_k)) @ V"),
    ("Attention(Q, K, V) = softmax(score(Q, K)) · V", "softmax(score(Q, K)) @ V"),
    ("softmax(qk^t)v", "softmax(Q @ K.mT) @ V"),
    ("F.softmax(Q @ K.transpose(-2, -1) / math.sqrt(d_k), dim=-1) @ V",
     "F.softmax(Q @ K.transpose(-2, -1) / math.sqrt(d_k), dim=-1) @ V"),
    ("weights = F.softmax(Q, dim=-1)", "F.softmax(Q, dim=-1)"),
])
def test_maths_and_code_notations_read_into_one_expression(text, source):
    assert read_expression(text, TENSOR).source == source


@pytest.mark.parametrize("text, value", [
    ("0,25", 0.25), ("1/sqrt(16)", 0.25), ("16^-0.5", 0.25), ("about 0.25", 0.25), ("≈ ¼", 0.25),
    ("one quarter", 0.25), ("2^-2", 0.25), ("Var ≈ 64", 64), ("64, one per component", 64), ("d_k", 64),
    ("1/√d_k", 0.125), ("0,125", 0.125), ("8^2", 64),
])
def test_numbers_in_other_forms(text, value):
    assert read_number(text, {"d_k": 64}) == pytest.approx(value)


@pytest.mark.parametrize("text", ["1,000", "1,5,0", "∞", "1e999", "no idea", "", "0/0", "1/0"])
def test_numbers_that_cannot_be_read_or_are_ambiguous(text):
    assert read_number(text, {"d_k": 64}) is None


HOSTILE = [
    "(" * 300 + "1" + ")" * 300, "x" * 5000, "1" * 399, "((((2^64)^64)^64)^64)^64", "((((d_k^64)^64)^64)^64)^64",
    "exp(exp(exp(exp(exp(d_k)))))", "9" * 6 + "^" + "9" * 6, "__import__('os').system('id')",
    "(lambda: 1)()", "[q for q in Q]", "(y := 3)", "Q.__class__", "open('/etc/passwd').read()",
    "torch.load('/etc/passwd')", "getattr(torch, 'softmax')", "eval('1')", "f'{Q}'", "*Q", "Q if Q else K",
    "\\input{/etc/passwd}", "a" * 50 + "(" * 50, "\x00\x01", "'" * 100,
]


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_text_is_refused_or_judged_never_run(text):
    verdict = compare_formula(text, "sqrt(d_k)", SCALAR)
    assert verdict.equal is not True
    assert read_number(text, {"d_k": 64}) is None or text.isdigit()
    try:
        reading = read_expression(text, TENSOR)
    except Unreadable:
        return
    assert "__" not in reading.source and "lambda" not in reading.source  # only allow-listed syntax survives


def test_unknown_names_are_reported_by_name():
    with pytest.raises(UnknownName) as info:
        read_expression("softmax(X) V", TENSOR)
    assert info.value.name == "X"
