"""Scalar maths and numbers: is the student's formula the same as the answer key?

A formula read by `notation.read_expression` (already validated: small, known names, small constants)
is walked into a sympy expression by hand, never through `sympify`/`parse_expr`, which call `eval`.
Two formulas are the same when sympy simplifies their difference to 0, or failing that, when they agree
at several random positive points. Numbers are read the same way, so "1/sqrt(16)", "16^-0.5", "0,25",
"about 0.25" and "≈ ¼" are all 0.25.
"""
from __future__ import annotations

import ast
import random
import re
from dataclasses import dataclass
from fractions import Fraction

from .notation import Reading, Unreadable, UnknownName, Vocabulary, read_expression

MAX_EXPONENT = 64
MAX_BITS = 8192  # about (2^64)^64 at most: far beyond any answer, far below a slow one
_DECIMAL_COMMA = re.compile(r"(?<![\d,])(\d+),(\d+)(?![\d,])")
_VERB_DIVIDE = re.compile(r"^(?:it\s+)?(?:divides?|dividing|divided|division)\b.*?\bby\b", re.I)
_VERB_MULTIPLY = re.compile(r"^(?:it\s+)?(?:multipl(?:y|ies|ied|ying)|scal(?:e|es|ed|ing)|times)\b.*?\bby\b", re.I)
_LEADING_BY = re.compile(r"^by\b", re.I)


@dataclass(frozen=True)
class Verdict:
    """equal: True/False once the answer was read; None when it could not be read (a person decides)."""
    equal: bool | None
    message: str = ""
    matched: int | None = None  # wrong: the index of the listed misconception it computes the same as
    computes: str | None = None  # wrong: what it computes or states (a formula, a digest of tensors), so that
    #                              answers that mean the same can share a review group


def _sympy():
    import sympy  # imported on first use: about half a second, and only runs that need maths pay it

    return sympy


def to_sympy(reading: Reading, symbols: dict[str, object]):
    """Walk the validated tree into sympy. Only numbers, known symbols, + - * / ^ and a few functions."""
    sp = _sympy()
    functions = {"sqrt": sp.sqrt, "exp": sp.exp, "log": sp.log, "ln": sp.log, "abs": sp.Abs}

    def walk(node):
        if isinstance(node, ast.Expression):
            return walk(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
            return sp.Rational(Fraction(str(node.value))) if isinstance(node.value, float) else sp.Integer(node.value)
        if isinstance(node, ast.Name) and node.id in symbols:
            return symbols[node.id]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            value = walk(node.operand)
            return -value if isinstance(node.op, ast.USub) else value
        if isinstance(node, ast.BinOp):
            left, right = walk(node.left), walk(node.right)
            if isinstance(node.op, ast.Add):
                return left + right
            if isinstance(node.op, ast.Sub):
                return left - right
            if isinstance(node.op, (ast.Mult, ast.MatMult)):
                return left * right
            if isinstance(node.op, ast.Div):
                if right == 0:
                    raise Unreadable("divides by zero")
                return left / right
            if isinstance(node.op, ast.Pow):
                if not right.is_number or abs(float(right)) > MAX_EXPONENT:
                    raise Unreadable("uses an exponent the question does not need")
                if left == 0 and float(right) < 0:
                    raise Unreadable("divides by zero")
                if left.is_number and abs(float(right)) * max(1, sp.log(abs(left) + 1, 2).evalf()) > MAX_BITS:
                    raise Unreadable("uses a number far larger than the question needs")
                result = left ** right
                if any(p.exp.is_number and abs(float(p.exp)) > MAX_EXPONENT for p in result.atoms(sp.Pow)):
                    raise Unreadable("uses an exponent the question does not need")
                return result
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in functions \
                and len(node.args) == 1 and not node.keywords:
            argument = walk(node.args[0])
            if node.func.id == "exp" and argument.has(sp.exp):
                raise Unreadable("nests exponentials deeper than an answer needs")
            return functions[node.func.id](argument)
        raise Unreadable("uses something other than numbers, the question's symbols and + - * / ^ sqrt")

    return walk(reading.tree)


def _formula_key(answer) -> str | None:
    """The simplified formula, written out: two answers with one key are the same formula."""
    try:
        return "formula " + str(_sympy().simplify(answer))
    except Exception:  # noqa: BLE001 - no key: the answer keeps a review group of its own
        return None


def same_formula(answer, key, symbols) -> bool:
    """The same formula, exactly: decimals are read as the fractions they write ("d_k^0.5" is the square root,
    "sqrt(d_k) + 1e-9" is not), and where sympy cannot decide, the difference is evaluated at random points
    to 40 digits (a rounding of 1e-12 is a difference)."""
    sp = _sympy()
    try:
        answer, key = sp.nsimplify(answer, rational=True), sp.nsimplify(key, rational=True)
    except Exception:  # noqa: BLE001 - left as read; the checks below still decide
        pass
    difference = answer - key
    try:
        if sp.simplify(difference) == 0:
            return True
    except Exception:  # noqa: BLE001 - sympy may give up on odd input; the numeric check still decides
        pass
    rng = random.Random(0)
    for _ in range(4):
        point = {s: sp.Rational(rng.randint(2, 97), rng.randint(1, 7)) for s in symbols}
        try:
            gap, size = complex(difference.subs(point).evalf(40)), complex(key.subs(point).evalf(40))
        except Exception:  # noqa: BLE001 - an answer sympy cannot evaluate is not the key
            return False
        if abs(gap) > 1e-25 * max(1.0, abs(size)):
            return False
    return True


def formula_symbols(vocabulary: Vocabulary) -> dict[str, object]:
    sp = _sympy()
    return {name: sp.Symbol(name, positive=True) for name in vocabulary.names}


def read_factor(text: str, factor: str | None) -> tuple[str, bool]:
    """Strip "divides by" / "multiplies by" wording. Returns (formula text, reciprocal?)."""
    stripped = text.strip()
    if factor == "divisor":
        if _VERB_MULTIPLY.match(stripped):
            return _VERB_MULTIPLY.sub("", stripped, count=1), True
        stripped = _VERB_DIVIDE.sub("", stripped, count=1)
    return _LEADING_BY.sub("", stripped.strip(), count=1), False


def compare_formula(given: object, key: str, vocabulary: Vocabulary, factor: str | None = None) -> Verdict:
    """Is `given` the formula `key` (both over the vocabulary's symbols)?"""
    if isinstance(given, bool) or not isinstance(given, (str, int, float)):
        return Verdict(False, "Answer with a formula.")
    text, reciprocal = read_factor(str(given), factor)
    try:
        reading = read_expression(text, vocabulary)
    except UnknownName as unknown:
        return Verdict(None, f"{unknown}; your instructor will read this answer.")
    except Unreadable as problem:
        return Verdict(None, f"The grader could not read this as a formula ({problem}); your instructor will read it.")
    symbols = formula_symbols(vocabulary)
    try:
        answer = to_sympy(reading, symbols)
        expected = to_sympy(read_expression(key, vocabulary), symbols)
    except Unreadable as problem:
        return Verdict(None, f"The grader could not read this as a formula ({problem}); your instructor will read it.")
    if reciprocal:
        if answer == 0:
            return Verdict(False, "Incorrect.")
        answer = 1 / answer
    if same_formula(answer, expected, list(symbols.values())):
        return Verdict(True, f"Correct: {reading.shown} is the expected formula.")
    shown = f"1/({reading.shown})" if reciprocal else reading.shown
    return Verdict(False, f"Incorrect: {shown} is not the same as the expected formula.", computes=_formula_key(answer))


# --- numbers -------------------------------------------------------------------------------------

# A sentence around a number that says nothing of its own: "The answer is 4", "I got 4", "4 is the answer".
_LEAD_IN = re.compile(r"^(?:(?:so|then|thus|hence)\s*,?\s+)?(?:(?:the|my|our|final)\s+)*"
                      r"(?:answer|result|value|total)\s*(?:is|:|=|equals)\s*|"
                      r"^(?:i|we)\s+(?:got|get|obtain(?:ed)?|find|found)\s+|^it(?:'?s|\s+is)\s+|^(?:it\s+)?equals\s+|"
                      r"^(?:(?:la|a)\s+)?(?:r[ée]ponse|respuesta|risposta|resposta)\s+(?:est|es|[èeé])\s+|"
                      r"^(?:die\s+)?antwort\s+ist\s+|^=\s*", re.IGNORECASE)
_TRAIL_OUT = re.compile(r"\s+(?:is\s+the\s+answer|in\s+total|overall)\s*\.?\s*$", re.IGNORECASE)
# "2 x 2": a letter x between two numbers is a product sign (where no constant is called x)
_X_TIMES = re.compile(r"(?<=[\d)²³}])\s*[xX]\s*(?=[\d(√\\]|sqrt\b)")
# "3 4", "1/sqrt(64) 0.125": two numbers side by side are two numbers, not a product a student meant
_TWO_NUMBERS = re.compile(r"[\d)]\.?\s+\.?\d")


def without_frame(text: str) -> str:
    """The answer a sentence that says nothing wraps ("The answer is 4." -> "4")."""
    stripped = _TRAIL_OUT.sub("", _LEAD_IN.sub("", text.strip(), count=1))
    return stripped.strip() or text.strip()


def read_number(value: object, constants: dict[str, float] | None = None, whole: bool = False) -> float | None:
    """A numeric answer as a float: 0.125, "1/8", "0,125", "1/sqrt(64)", "2^-3", "about 0.125", "≈⅛";
    names in `constants` (e.g. d_k = 64) may be used. None if it cannot be read (or is ambiguous).
    Unless `whole`, a leading number followed by words ("64, one per component") is read as that number."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value) if value == value and abs(value) != float("inf") else None
    text = without_frame(str(value))
    if not any(name.casefold() == "x" for name in constants or {}):
        text = _X_TIMES.sub(" · ", text)
    if _TWO_NUMBERS.search(text):
        return None
    text = re.sub(r"^~\s*(?=[\d.])", "", text)  # "~64": about 64 (a number answer never means Python's bitwise not)
    text = re.sub(r"(?<![\w.])(\d+(?:\.\d+)?)\s*%$", r"(\1/100)", text)  # "25%" is 0.25
    if not text or len(text) > 200:
        return None
    commas = _DECIMAL_COMMA.findall(text)
    if commas:
        if len(commas) > 1 or "." in text or any(len(d) == 3 and w != "0" for w, d in commas):
            return None  # "1,000" could be a thousand; "0,125" and "0,25" cannot
        text = _DECIMAL_COMMA.sub(r"\1.\2", text)
    constants = constants or {}
    value = _number(text, constants)
    if value is None and not whole:  # "64, one per component", "0.25 (1/4)", "64 because ...": the leading number
        head, _ = leading_part(text)
        value = _number(head, constants) if head.strip() and head != text else None
    return value


_LEAD_SPLIT = re.compile(r",\s|;|\s(?:because|since|as)\s")


def leading_part(text: str) -> tuple[str, str]:
    """An answer's leading part and what follows it: up to a comma, a semicolon or a reason word, else up to
    a bracket after its first character ("(6 - 3) + (6 - 5) since ..." keeps its brackets)."""
    parts = _LEAD_SPLIT.split(text, maxsplit=1)
    if len(parts) == 1:
        parts = re.split(r"(?<=.)\(", text, maxsplit=1)
    return parts[0], (parts[1] if len(parts) > 1 else "")


# An answer may state more than its number: "0.25 (1/4)", "1/sqrt(16) = 0.25", "0.25, i.e. 1/sqrt(d_model)".
# Each part that looks like maths (a digit, an operator, a name with an underscore, a root) is a claim; an
# aside in brackets after a space is a part of its own ("sqrt(16)" is not an aside).
# A bracket that is an operand ("(6 - 3) + (6 - 5)", "2 x (1 + 1)", "(2)²") is no aside.
_OPERATOR = r"[-+*/^·×÷−⋅∙]"
_NESTED = r"(?:[^()]|\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\))*"  # brackets three deep inside
_ASIDE = re.compile(rf"(?:^|(?<=\s))(?<!{_OPERATOR}\s)(?<!\sx\s)(?<!\(\s)(?<!\\cdot\s)(?<!\\times\s)(?<!\\div\s)"
                    rf"\(({_NESTED})\)"
                    rf"(?!\s*(?:{_OPERATOR}|[)²³⁻\\]|[xX]\s*(?:[\d(√\\]|sqrt\b)))")
_CLAIMS = re.compile(r",\s|;|=|≈|\s(?:because|since|as|with|where|so|thus|hence|i\.\s?e\.?|that\s+is|"
                     r"which\s+is|means|gives)\s", re.IGNORECASE)
_LEADING = re.compile(r"^(?:(?:so|thus|hence|i\.\s?e\.?|that\s+is|which\s+is|because|since|as|with|where|gives|"
                      r"means|or|and|then)\s+)+", re.IGNORECASE)
_MATHS_LIKE = re.compile(r"\d|[√^*/·×⅛¼½]|[^\W\d_]_\w|\bsqrt\b|\bexp\b|\blog\b|\bd_?k\b|\bd_?model\b",
                         re.IGNORECASE)
_BINDING = re.compile(r"^(?P<expression>.+?)(?:[,;]\s*|\s+(?:with|where|for)\s+)(?P<name>[A-Za-z][A-Za-z0-9_]*)\s*=\s*"
                      r"(?P<number>-?\d+(?:\.\d+)?)\s*\.?\s*$", re.IGNORECASE)


def stated_values(text: str, constants: dict[str, float] | None = None) -> list[float | None]:
    """Every value an answer states, part by part (None for a part that looks like maths but cannot be read,
    such as "1/sqrt(d_model)" where d_model has no value): a number is credited only when all agree."""
    constants = constants or {}
    spaced = _ASIDE.sub(lambda m: f"; {m.group(1)}; ", str(text))
    parts = [_LEADING.sub("", p.strip()).rstrip(".:").strip() for p in _CLAIMS.split(spaced)]
    return [read_number(p, constants) for p in parts if p and _MATHS_LIKE.search(p)]


def with_binding(text: str) -> tuple[str, dict[str, float]] | None:
    """"1/sqrt(d_k) with d_k = 16": the expression and the value it gives its name, as a teacher reads it."""
    found = _BINDING.match(str(text).strip())
    if found is None or not _MATHS_LIKE.search(found["expression"]):
        return None
    return found["expression"], {found["name"]: float(found["number"])}


# "3^2/2": the notation reads a power over a number as a fractional power ("d_k^1/2" is a root); a number
# answer is that value only when the plain reading, (3^2)/2, is the same value.
_POWER_OVER = re.compile(r"\^\s*(\d+(?:\.\d+)?)(?=\s*/\s*\d)")


def _number(text: str, constants: dict[str, float]) -> float | None:
    value = _one_reading(text, constants)
    if value is not None and _POWER_OVER.search(text):
        plain = _one_reading(_POWER_OVER.sub(r"^(\1)", text), constants)
        if plain is None or abs(plain - value) > 1e-9 * max(1.0, abs(value)):
            return None
    return value


def _one_reading(text: str, constants: dict[str, float]) -> float | None:
    vocabulary = Vocabulary(frozenset(constants), {k.casefold(): k for k in constants})
    try:
        reading = read_expression(text, vocabulary)
        sp = _sympy()
        symbols = {name: sp.Float(constant) for name, constant in constants.items()}
        result = complex(to_sympy(reading, symbols).evalf())
    except (Unreadable, TypeError, ValueError, OverflowError, ZeroDivisionError):
        return None
    if abs(result.imag) > 1e-12 or result.real != result.real or abs(result.real) == float("inf"):
        return None
    return float(result.real)
