"""Number answers: "0.25", "1/4", "1/sqrt(16)", "0,25", "about 0.25", "I think 0.25.", "1/sqrt(d_k) with d_k = 16".

A number earns its points by itself only when everything the answer states agrees (every value it writes,
a size it gives beside it, words that say something); a full stop or capitals a sentence put around it
change nothing; otherwise a person reads it, with what disagrees named.
"""
from __future__ import annotations

import re
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal
from typing import Any

from .equivalence import leading_part, read_number, stated_values, with_binding, without_frame
from .misconceptions import matching_number
from .model import Question
from .normalize import sentence_forms
from .outcome import (FLOAT_SLACK, GradingContext, Outcome, judged_by_person, set_aside_hedges, unless_hedged,
                      wrong_answer)
from .suggest import Suggestion

def grade_numeric(q: Question, given: Any, context: GradingContext) -> Outcome:
    return unless_hedged(_read_numeric, q, _number_as_written(q, given), context)


def _number_as_written(q: Question, given: Any) -> Any:
    """A number answer as the sentence around it may have changed it: a full stop at its end ("0.25.", "I
    think 0.25."), capitals ("1/SQRT(16)": caps lock, a phone). Taken only when the answer as written does not
    read, and capitals only where no constant's name has one (then case cannot tell two names apart)."""
    if not isinstance(given, str) or _reads_as_number(q, given):
        return given
    cased = any(name != name.lower() for name, _ in q.constants)
    forms = sentence_forms(given, "none" if cased else "all")
    return next((form for form in [*forms, *filter(None, (_without_unit(q, f) for f in [given, *forms]))]
                 if _reads_as_number(q, form)), given)


_UNIT = re.compile(r"^(?P<number>.*?[\d)²³}])\s*(?P<unit>[^\W\d_]{2,}(?:\s+[^\W\d_]{2,})?)\s*\.?$")


def _without_unit(q: Question, text: str) -> str | None:
    """"4 heads" where the prompt asks how many heads: the number, its unit the question's own word (never a
    word that changes a number, such as "thousand", nor a constant's name)."""
    found = _UNIT.match(text.strip())
    if found is None:
        return None
    asked = set(re.findall(r"[^\W\d_]+", q.prompt.casefold()))
    names = {name.casefold() for name, _ in q.constants}
    for word in found["unit"].casefold().split():
        if _CHANGES_A_NUMBER.search(word) or word in names or word in _MATHS_WORDS or not (
                word in asked or word.removesuffix("s") in asked or word + "s" in asked):
            return None
    return found["number"]


_MATHS_WORDS = frozenset("sqrt exp log ln pi or and to per".split())


def _reads_as_number(q: Question, text: str) -> bool:
    constants = dict(q.constants)
    bound = with_binding(text)
    if bound is not None:
        text, named = bound
        constants = {**constants, **named}
    text = set_aside_hedges(text)
    claims = stated_values(text, constants)
    return None not in claims if len(claims) > 1 else read_number(text, constants) is not None  # as _read_numeric


def _read_numeric(q: Question, given: Any, context: GradingContext) -> Outcome:
    constants = dict(q.constants)
    bound = with_binding(given) if isinstance(given, str) else None
    text = given
    if bound is not None:  # "1/sqrt(d_k) with d_k = 16": the expression, with the value the student gives d_k
        text, named = bound
        (name, value), = named.items()
        if name in constants and abs(constants[name] - value) > FLOAT_SLACK * max(1.0, abs(value)):
            return judged_by_person(q, given, context, "This answer is read by a person", Suggestion(
                None, f"it says {name} = {value:g}, where the question's {name} is {constants[name]:g}", None))
        if name not in constants and read_number(text, constants) is not None:
            # "0.25 with d_k = 64": the number does not use the name, so the binding is a claim of its own
            return judged_by_person(q, given, context, "This answer is read by a person", Suggestion(
                None, f"beside its number it says {name} = {value:g}, which a person checks", None))
        constants = {**constants, **named}
    claims = stated_values(text, constants) if isinstance(text, str) else []
    if len(claims) > 1:  # "0.25 (1/4)", "1/sqrt(16) = 0.25", "0.25, i.e. 1/sqrt(d_model)", "64 (std 64)"
        right = [v for v in claims if v is not None and _within(q, v)]
        if len(right) == len(claims):
            return Outcome(q.points, "Correct.")
        if right:  # the right number, and a claim beside it that is not (or cannot be read): a person weighs it
            odd = next(v for v in claims if v is None or not _within(q, v))
            said = "something that cannot be read as a number" if odd is None else f"{odd:g}"
            return judged_by_person(q, given, context, "This answer is read by a person",
                                     Suggestion(None, f"it states the expected number and also {said}", None))
        if None in claims:  # part of what it states cannot be read: that part may be the answer
            return judged_by_person(q, given, context, f"The grader could not read all of {given!r} as numbers")
        value = claims[0]
        if any(not _same(v, value) for v in claims):  # "3 or 5", "0.5 (1/3)": which one is the answer?
            said = " and ".join(dict.fromkeys(f"{v:g}" for v in claims))
            return judged_by_person(q, given, context, "This answer is read by a person",
                                     Suggestion(None, f"it states {said}, none of them the expected number", None))
        # "(1 + 1) (1 + 1)": a bracket beside a bracket is also a product
        whole = read_number(re.sub(r"\)\s+\(", ")·(", text), constants, whole=True)
        if whole is not None and not _same(whole, value) and (
                _within(q, whole) or matching_number(q, whole) != matching_number(q, value)):
            # "(1 + 1) (1 + 1)": 2 and its aside, or the product 4; a person says which was meant
            return judged_by_person(q, given, context, "This answer is read by a person", Suggestion(
                None, f"read as {whole:g} as a whole, or as {value:g} with an aside", None))
        return wrong_answer(q, given, context, f"Incorrect: {value:g} is not within {q.tolerance:g} of the expected value.",
                      matching_number(q, value))
    value = read_number(text, constants)
    if value is None:
        return judged_by_person(q, given, context, f"The grader could not read {given!r} as a number")
    partial = isinstance(text, str) and read_number(text, constants, whole=True) is None
    if claims and claims[0] is not None and abs(claims[0] - value) > FLOAT_SLACK * max(1.0, abs(value)):
        # "0.25 (one quarter)" read whole as 0.25 · 1/4: its one number and its whole say two things
        return judged_by_person(q, given, context, "This answer is read by a person",
                                 Suggestion(None, f"read as {value:g} as a whole, but it writes {claims[0]:g}", None))
    if partial and _CHANGES_A_NUMBER.search(_unread(text)):
        # "5 thousand", "1 ((1)+(sqrt(1)))": only the leading number was read; what follows may change it
        return judged_by_person(q, given, context, "This answer is read by a person", Suggestion(
            None, f"only its leading number {value:g} could be read", None))
    if _within(q, value):
        said = _said_beside(text) if partial else ""  # an expression read whole has nothing beside it
        if said:  # "64, the same as the variance of each component": the number is right, the claim is words
            return judged_by_person(q, given, context, "This answer is read by a person",
                                     Suggestion(q.points, f"the number is right; beside it the answer says "
                                                          f"\"{said}\", which a person weighs", None))
        return Outcome(q.points, "Correct.")
    message = f"Incorrect: {value:g} is not within {q.tolerance:g} of the expected value."
    listed = matching_number(q, value)
    if partial and not _only_a_reason(text):  # "5, per head": what follows may be part of the answer
        return judged_by_person(q, given, context, "This answer is read by a person", Suggestion(
            None, f"only its leading number {value:g} could be read", None))
    if partial and listed is None and isinstance(given, str) and any(
            _within(q, float(n)) for n in re.findall(r"(?<![\w.])-?\d+(?:\.\d+)?(?:e-?\d+)?", given)):
        # "d_k ** -0.5 with d_k = 16, so 0.25": the right number is written too; which one is the answer is
        # for a person to say, not for the first number read
        return judged_by_person(q, given, context, "This answer is read by a person",
                                 Suggestion(None, f"read as {value:g}, but it also writes the expected number", None))
    places = _rounded_key(q, given, value) if listed is None else None
    if places is not None:  # "0.13" for 0.125: whether that rounding is close enough is a teacher's call
        return judged_by_person(q, given, context, "This answer is read by a person", Suggestion(
            None, f"it is the expected {q.answer:g} rounded to {places} decimal place{'s' * (places > 1)}", None))
    return wrong_answer(q, given, context, message, listed)


def _rounded_key(q: Question, given: Any, value: float) -> int | None:
    """The decimal places of a bare decimal answer that is the key rounded to them (half up or half even),
    outside the tolerance: None otherwise."""
    written = re.fullmatch(r"\s*[≈~]?\s*-?\d*\.(\d+)\s*", str(given))
    if written is None:
        return None
    places = len(written[1])
    halves = (float(Decimal(repr(q.answer)).quantize(Decimal(1).scaleb(-places), rounding=mode))
              for mode in (ROUND_HALF_UP, ROUND_HALF_EVEN))
    return places if any(abs(value - rounded) <= FLOAT_SLACK * max(1.0, abs(value)) for rounded in halves) else None


# What may stand beside a number without saying anything of its own: hedges, "the answer", units of nothing.
_BESIDE = re.compile(r"(?:,|;|:|\s[-–—]\s|\s(?:which|that)\s+is\b|(?=\s(?:because|since|as|car|parce\s+que|porque|"
                     r"weil|perch[ée]|pois)\s))\s*(?P<said>.*\S)", re.IGNORECASE)
# (not reasons.HEDGES: "only", "always", "depends" qualify a claim; these only say how sure the writer is)
_SAYS_NOTHING = frozenset("i think guess believe maybe probably perhaps not sure about roughly approximately "
                          "approx around nearly so the answer is it that this je pense creo glaube vielleicht "
                          "peut etre quizas".split())


_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?:[eE][+-]?\d+)?")


def _said_beside(text: str) -> str:
    """The words written after a number answer's number, when they say something ("" when they only hedge)."""
    found = _BESIDE.search(without_frame(text))
    if found is None:
        return ""
    words = re.findall(r"[^\W\d_]+", _NUMBER.sub(" ", found["said"]).casefold())
    return found["said"] if any(w not in _SAYS_NOTHING for w in words) else ""


# Words that give a reason for a number without changing it: "5, because each head adds one".
_REASON = re.compile(r"^[^,;(]*?(?:,|;|\s)\s*(?:because|since|as|car|parce\s+que|porque|weil|perch[ée]|pois)\b",
                     re.IGNORECASE)
_CHANGES_A_NUMBER = re.compile(r"\d|\b(?:minus|plus|times|over|divided|half|halves|quarters?|squared|cubed|root|"
                               r"thousand|hundred|million|billion|percent|dozen|double|twice|less|more|fewer)\b",
                               re.IGNORECASE)


def _unread(text: str) -> str:
    """What follows the leading number read_number falls back to (its split, after the sentence around)."""
    head, rest = leading_part(without_frame(text))
    return rest if rest else head


def _only_a_reason(text: str) -> bool:
    """Whether what follows an answer's leading number is a reason in words ("because ...") with no number or
    word that would change the number."""
    found = _REASON.match(text)
    return found is not None and not _CHANGES_A_NUMBER.search(text[found.end():])


def _same(a: float, b: float) -> bool:
    return abs(a - b) <= FLOAT_SLACK * max(1.0, abs(a), abs(b))


def _within(q: Question, value: float) -> bool:
    return abs(value - q.answer) <= q.tolerance + FLOAT_SLACK * max(1.0, abs(q.answer))
