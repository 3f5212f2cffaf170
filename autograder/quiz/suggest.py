"""The reviewer's hint for a free-text answer no rule could decide: a score, why, and its meaning.

The keyword rubric only ever suggests. The hint says which rubric items the answer mentions and which
it misses, and why the answer was not graded on its own (words no term lists, a negation, the key terms
in an order no accepted answer has), so that a reviewer sees at once where a keyword match is hollow.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .meaning import MeaningReading, lexicon, read_meaning
from .model import Question
from .normalize import keyword_in, normalize_answer


@dataclass(frozen=True)
class Suggestion:
    score: float | None    # the rubric's score (None without a rubric)
    why: str
    # What the answer says, as review groups compare it: the canonical reading of free text (key terms by
    # name), the listed misconception it is, or the formula / tensors it computes. None: unknown.
    meaning: str | None


def rubric_hits(q: Question, normalized: str) -> list[tuple[int, str]]:
    """(rubric item index, first keyword it matched) for each item the answer mentions."""
    hits = []
    for index, item in enumerate(q.rubric):
        found = next((k for k in item.keywords if keyword_in(k, normalized)), None)
        if found is not None:
            hits.append((index, found))
    return hits


def rubric_score(q: Question, given: Any) -> float | None:
    if not q.rubric:
        return None
    return min(q.points, sum(q.rubric[i].points for i, _ in rubric_hits(q, normalize_answer(given))))


def reading(q: Question, given: Any) -> MeaningReading | None:
    return read_meaning(given, lexicon(q.terms, q.languages)) if q.terms else None


def suggest(q: Question, given: Any, why_not: str = "") -> Suggestion:
    normalized = normalize_answer(given)
    parts = []
    score = rubric_score(q, given)
    if q.rubric:
        hits = rubric_hits(q, normalized)
        found = ", ".join(f"{keyword!r} ({q.rubric[i].points:g})" for i, keyword in hits) or "nothing"
        missed = [q.rubric[i].keywords[0].rstrip("*") for i in range(len(q.rubric)) if i not in dict(hits)]
        parts.append(f"rubric {score:g}/{q.points:g}: mentions {found}"
                     + (f"; misses {', '.join(repr(m) for m in missed)}" if missed else ""))
    flagged = [k.rstrip("*") for k in q.review_if if keyword_in(k, normalized)]
    if flagged:
        parts.append(f"mentions {', '.join(repr(f) for f in flagged)}")
    if why_not:
        parts.append(why_not)
    meaning = reading(q, given)
    return Suggestion(score, "; ".join(parts), meaning.canonical if meaning else None)


def why_not_pinned(meaning: MeaningReading | None) -> str:
    """Why a reading earned no credit on its own."""
    if meaning is None:
        return "no accepted answer reads like it"
    if meaning.guards:
        return f"not graded automatically: it says {', '.join(repr(g) for g in dict.fromkeys(meaning.guards))}"
    if meaning.unknown:
        shown = ", ".join(repr(w) for w in list(dict.fromkeys(meaning.unknown))[:6])
        return f"not graded automatically: words no accepted answer uses ({shown})"
    if not meaning.terms:
        return "not graded automatically: it states none of the key terms"
    return ("not graded automatically: its key terms (" + ", ".join(meaning.terms)
            + ") are not those of an accepted answer, in that order")
