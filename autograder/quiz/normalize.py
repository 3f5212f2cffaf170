"""Normalise free-text answers so that equivalent spellings compare equal.

Both the student's answer and every accepted answer go through `normalize_answer`,
so the rules only have to map variants onto *one* canonical spelling, e.g.

    "sqrt(d_k)", "√d_k", "√(d_k)", "square root of d_k", "sqrt dk", "d_k ** 0.5"
        -> "sqrt(dk)"

Regex patterns in a quiz are matched (re.fullmatch) against this canonical form, so
quiz authors can call `normalize_answer` to see what their pattern will be applied to.
The rules deliberately stop short of algebra: "d_k" alone stays "dk" and is *not*
"sqrt(dk)".
"""

from __future__ import annotations

import re
import unicodedata

# Superscripts must become "^…" *before* NFKC, which would flatten "n²" to "n2".
_SUPERSCRIPTS = {
    "⁰": "0", "¹": "1", "²": "2", "³": "3", "⁴": "4", "⁵": "5", "⁶": "6", "⁷": "7",
    "⁸": "8", "⁹": "9", "⁻": "-", "⁺": "+", "ᵀ": "t", "ᵗ": "t", "ⁿ": "n",
}
_SUPERSCRIPT_RUN = re.compile("[" + "".join(_SUPERSCRIPTS) + "]+")

# Symbols NFKC leaves alone but students type interchangeably.
_SYMBOLS = str.maketrans({
    "−": "-", "–": "-", "—": "-", "‐": "-", "‑": "-",
    "×": "*", "·": "*", "⋅": "*", "∙": "*", "•": "*",
    "∞": " inf ", "√": " sqrt ", "⁄": "/", "÷": "/",
    "‘": "'", "’": "'", "“": '"', "”": '"',
    "→": "->", "⇒": "=>",
})

_WRAPPING = "\"'`"
_PHRASES = [
    (re.compile(r"\b(?:negative|minus)\s+inf(?:inity)?\b"), "-inf"),
    (re.compile(r"\binfinity\b"), "inf"),
    (re.compile(r"\bsquare\s+root(?:\s+of)?(?:\s+the)?\b"), " sqrt "),
    (re.compile(r"\bsqrt\s+of\b"), " sqrt "),
]
_SPACE_AROUND_SYMBOL = re.compile(r"\s*([^\w\s])\s*")
_BRACED_SUBSCRIPT = re.compile(r"_\{(\w+)\}")
_SUBSCRIPT_UNDERSCORE = re.compile(r"(?<=[^\W_])_+(?=[^\W_])")
_SQRT_OF_TOKEN = re.compile(r"\bsqrt\s+(\w+)")
# x^0.5, x^(1/2), (x)^-0.5 ... -> sqrt(x) or 1/sqrt(x)
_HALF_POWER = re.compile(r"(\w+|\([^()]*\))\^(\()?(-?)(?:0?\.5|1/2)(?(2)\))")
_LEADING_ARTICLE = re.compile(r"^(?:the|an|a)\s+")


def _superscripts_to_carets(text: str) -> str:
    return _SUPERSCRIPT_RUN.sub(lambda m: "^" + "".join(_SUPERSCRIPTS[c] for c in m.group()), text)


def _half_power_to_sqrt(match: re.Match) -> str:
    base = match.group(1)
    if base.startswith("(") and base.endswith(")"):
        base = base[1:-1]
    root = f"sqrt({base})"
    return f"1/{root}" if match.group(3) == "-" else root


def normalize_answer(text: object) -> str:
    """Canonical form of a free-text answer (see module docstring)."""
    s = _superscripts_to_carets(str(text))
    s = unicodedata.normalize("NFKC", s).casefold().translate(_SYMBOLS)
    s = " ".join(s.split())
    # Surrounding quotes and a closing full stop are not part of the answer.
    s = s.strip(_WRAPPING).rstrip(".!;").strip()
    for pattern, replacement in _PHRASES:
        s = pattern.sub(replacement, s)
    s = s.replace("**", "^")
    s = " ".join(s.split())
    s = _SPACE_AROUND_SYMBOL.sub(r"\1", s)  # "softmax( q , k )" == "softmax(q,k)"
    s = _BRACED_SUBSCRIPT.sub(r"_\1", s)  # d_{k} -> d_k
    s = _SUBSCRIPT_UNDERSCORE.sub("", s)  # d_k -> dk, so "dk" and "d_k" agree
    s = _SQRT_OF_TOKEN.sub(r"sqrt(\1)", s)
    s = _HALF_POWER.sub(_half_power_to_sqrt, s)
    s = _LEADING_ARTICLE.sub("", s)
    return s.strip()


def plain_text(text: object) -> str:
    """The first steps of `normalize_answer` only: Unicode folded, lower case, symbols unified, infinity
    written `-inf` / `inf`, spacing collapsed. Punctuation and spacing around it are kept (free text is
    read word by word from this form)."""
    s = _superscripts_to_carets(str(text))
    s = unicodedata.normalize("NFKC", s).casefold().translate(_SYMBOLS)
    for pattern, replacement in _PHRASES:
        s = pattern.sub(replacement, s)
    return " ".join(s.split())


def sentence_forms(text: str, case: str = "first") -> list[str]:
    """What a sentence may have done to an answer, undone, in the order to try them: a full stop at its end
    taken off (an ellipsis is not one), then capitals: `case` "first" lowers the first letter (a phone's
    doing), "all" every letter (caps lock), "none" none (where case tells names apart). Each form differs from
    `text`; a reader tries them only when `text` itself does not read, so nothing that reads is changed."""
    text = text.strip()
    unstopped = text[:-1].rstrip() if text.endswith(".") and not text.endswith("..") else ""
    lowered = {"first": [t[:1].lower() + t[1:] for t in (text, unstopped) if t[:1].isupper()],
               "all": [t.lower() for t in (text, unstopped) if t], "none": []}[case]
    forms = []
    for form in (unstopped, *lowered):
        if form and form != text and form not in forms:
            forms.append(form)
    return forms


def keyword_in(keyword: str, normalized_answer: str) -> bool:
    """Does the normalised answer mention `keyword`?

    Whole words only ("score" does not match "underscore"), except that a trailing
    `*` makes the keyword a prefix ("project*" matches "projection").
    """
    prefix = keyword.endswith("*")
    kw = normalize_answer(keyword.rstrip("*") if prefix else keyword)
    if not kw:
        return False
    start = r"(?<!\w)" if re.match(r"\w", kw) else ""
    end = "" if prefix or not re.search(r"\w$", kw) else r"(?!\w)"
    return re.search(start + re.escape(kw) + end, normalized_answer) is not None


_NUMBER = re.compile(r"^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$")


def parse_number(value: object) -> float | None:
    """Read a numeric answer: 0.125, ".125", "1/8", "1.25e-1", "−0.5". None if unreadable."""
    if isinstance(value, bool):  # bool is an int subclass; True is not 1 here
        return None
    if isinstance(value, (int, float)):
        return float(value) if value == value and abs(value) != float("inf") else None
    s = unicodedata.normalize("NFKC", str(value)).casefold().translate(_SYMBOLS)
    s = "".join(s.split()).replace("_", "")
    if "/" in s:
        numerator, _, denominator = s.partition("/")
        if _NUMBER.match(numerator) and _NUMBER.match(denominator) and float(denominator) != 0:
            return float(numerator) / float(denominator)
        return None
    return float(s) if _NUMBER.match(s) else None
