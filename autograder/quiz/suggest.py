"""The reviewer's hint for a free-text answer no rule could decide: a score, why, and its meaning.

The keyword rubric only ever hints: a correct paraphrase misses its keywords as often as a wrong answer hits
them, so its count is shown as what was read and matched, never as a score the review page accepts with one
key (`certain` is False). The hint says which rubric items the answer mentions and which it misses, and why
the answer was not graded on its own (other words than the key terms, a negation, the key terms in an order
no accepted answer has), so that a reviewer sees at once where a keyword match is hollow. The two parts
never contradict each other: a word of a rubric keyword the answer mentions is not also listed as a word
outside the key terms.

`certain` marks the few suggestions that follow from a rule the kit applies anyway (a wrong option or
verdict scores 0 whatever its reason): only those can be taken with `a`/Enter on the review page.
"""
from __future__ import annotations

import re
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
    certain: bool = False  # the evidence decides the score: the review page may take it with one key


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


def suggest(q: Question, given: Any, why_not: str | None = None) -> Suggestion:
    """`why_not`: why no rule decided the answer; None: read from its meaning (why_not_pinned), leaving out
    the words of the rubric keywords it mentions."""
    normalized = normalize_answer(given)
    parts = []
    score = rubric_score(q, given)
    hits = rubric_hits(q, normalized) if q.rubric else []
    meaning = reading(q, given)
    if why_not is None:
        covered = {w for _, keyword in hits for w in re.split(r"[^\w]+", normalize_answer(keyword.rstrip("*"))) if w}
        why_not = why_not_pinned(meaning, covered)
    if q.rubric:
        found = ", ".join(f"{keyword!r} ({q.rubric[i].points:g})" for i, keyword in hits) or "nothing"
        missed = [q.rubric[i].keywords[0].rstrip("*") for i in range(len(q.rubric)) if i not in dict(hits)]
        parts.append(f"rubric {score:g}/{q.points:g}: mentions {found}"
                     + (f"; misses {', '.join(repr(m) for m in missed)}" if missed else ""))
    flagged = [k.rstrip("*") for k in q.review_if if keyword_in(k, normalized)]
    if flagged:
        parts.append(f"uses {', '.join(repr(f) for f in flagged)}, which this question asks a person to weigh")
    if why_not:
        parts.append(why_not)
    return Suggestion(score, "; ".join(parts), meaning.canonical if meaning else None)


def why_not_pinned(meaning: MeaningReading | None, covered: set[str] = frozenset()) -> str:
    """Why a reading earned no credit on its own. `covered`: words of rubric keywords the answer mentions,
    never listed as words outside the key terms (the hint would say both)."""
    if meaning is None:
        return "no accepted answer reads like it"
    if meaning.guards:
        return f"not graded automatically: it says {', '.join(repr(g) for g in dict.fromkeys(meaning.guards))}"
    if meaning.unknown:
        outside = [w for w in dict.fromkeys(meaning.unknown) if w not in covered and not any(
            w.startswith(c) or c.startswith(w) for c in covered)]
        if not outside:
            return "not graded automatically: its wording is not an accepted answer's key terms"
        shown = ", ".join(repr(w) for w in outside[:6])
        return f"not graded automatically: words outside the question's key terms ({shown})"
    if not meaning.terms:
        return "not graded automatically: it states none of the key terms"
    return ("not graded automatically: its key terms (" + ", ".join(meaning.terms)
            + ") are not those of an accepted answer, in that order")
