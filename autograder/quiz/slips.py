"""A code or formula answer that does not run for a slip: what it reads as once the slip is mended.

"F.sofmax(scores, dim=-1)", "F.softmax(score, dim=-1)" and "F.softmax(scores, dim=-1" all fail (a name, an
attribute, a bracket), and all are the accepted answer with one slip. Grading never gives credit for such an
answer (the issue: a person decides, with the error shown), but the reviewer sees what it would be, and
answers that are the same answer mended the same way share one review group (`Suggestion.meaning`).

A slip is mended only where the mending is the one possible: a name no answer of the question uses, one edit
(a letter added, left out, changed, or two swapped) from exactly one name the question's own accepted
answers, listed misconceptions, inputs or functions use (both at least four letters long), and brackets left
open at the end. The mended answer must then read as an accepted answer or a listed misconception exactly
(code: as written, after spacing; maths: the same formula under sympy); anything else says nothing.
"""
from __future__ import annotations

import keyword
import re
from dataclasses import dataclass

from .model import Question

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
MIN_NAME = 4
_OPEN = {"(": ")", "[": "]"}


@dataclass(frozen=True)
class Mended:
    text: str                         # the answer with its slips mended
    changes: tuple[str, ...]          # what was mended, as the reviewer reads it
    reads_as: str                     # the accepted answer or misconception it then is
    misconception: int | None = None  # index of the listed misconception, None for an accepted answer


def known_names(question: Question) -> frozenset[str]:
    """The names the question's own answers and inputs use: what a slip may be read as."""
    texts = [*question.accepted, *(str(m.answer) for m in question.misconceptions)]
    spec = question.code or question.maths
    names: set[str] = set()
    if question.code is not None:
        names |= set(spec.inputs) | set(spec.functions) | set(spec.constants)
    else:
        names |= set(spec.symbols)
    texts += [spec.answer, *(name for pair in spec.aliases for name in pair)]
    for text in texts:
        names |= set(_NAME.findall(text))
    return frozenset(n for n in names if not keyword.iskeyword(n))


def _one_slip(a: str, b: str) -> bool:
    """One edit apart: a letter added, left out or changed, or two neighbouring letters swapped."""
    from rapidfuzz.distance import OSA

    return a != b and OSA.distance(a, b, score_cutoff=1) <= 1


def mend_text(text: str, names: frozenset[str]) -> tuple[str, tuple[str, ...]]:
    """The text with each unknown name read as its one near known name, and brackets left open closed."""
    changes: list[str] = []

    def mend(match: re.Match) -> str:
        word = match.group(0)
        if word in names or keyword.iskeyword(word) or len(word) < MIN_NAME:
            return word
        near = [n for n in names if len(n) >= MIN_NAME and _one_slip(word, n)]
        if len(near) != 1:
            return word
        changes.append(f"`{word}` read as `{near[0]}`")
        return near[0]

    mended = _NAME.sub(mend, text)
    stack = []
    for char in mended:
        if char in _OPEN:
            stack.append(_OPEN[char])
        elif char in _OPEN.values():
            if not stack or stack.pop() != char:
                return mended, tuple(changes)  # brackets closed in the wrong place: not a slip at the end
    if stack:
        closing = "".join(reversed(stack))
        changes.append(f"`{closing}` added at the end")
        mended = mended.rstrip() + closing
    return mended, tuple(changes)


def mended_reading(question: Question, given: object) -> Mended | None:
    """What a failing code or formula answer is once its slips are mended, when that is an accepted answer
    or a listed misconception; None otherwise."""
    if not isinstance(given, str) or (question.code is None and question.maths is None):
        return None
    text, changes = mend_text(given.strip(), known_names(question))
    if not changes:
        return None
    if question.code is not None:
        return _as_code(question, text, changes)
    return _as_formula(question, text, changes)


def _as_code(question: Question, text: str, changes: tuple[str, ...]) -> Mended | None:
    from .code_answers import CodeAnswer, canonical_source, prepare, vocabulary, written_alike
    from .notation import Unreadable, UnknownName, read_expression

    prepared = prepare(question, text)
    if isinstance(prepared, CodeAnswer):
        alike = written_alike(prepared.source)
        for accepted in question.accepted:
            try:
                if written_alike(canonical_source(read_expression(accepted, vocabulary(question.code)))) == alike:
                    return Mended(text, changes, accepted)
            except (UnknownName, Unreadable):
                continue
    elif prepared.equal is False and prepared.matched is not None:
        return Mended(text, changes, str(question.misconceptions[prepared.matched].answer), prepared.matched)
    return None


def _as_formula(question: Question, text: str, changes: tuple[str, ...]) -> Mended | None:
    from .equivalence import compare_formula
    from .misconceptions import matching_formula
    from .notation import Vocabulary

    spec = question.maths
    verdict = compare_formula(text, spec.answer, Vocabulary(frozenset(spec.symbols), dict(spec.aliases)), spec.factor)
    if verdict.equal:
        return Mended(text, changes, spec.answer)
    listed = matching_formula(question, text) if verdict.equal is False else None
    if listed is not None:
        return Mended(text, changes, str(listed.answer), question.misconceptions.index(listed))
    return None
