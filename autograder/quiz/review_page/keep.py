"""Keep a review decision for later terms, from the review page: the group's wordings taught to the quiz YAML.

The same machinery as `python -m autograder.quiz learn OUT` (learn.py), for one decided group: a group at full
points is "accept this reading" (its phrasing added to the question's terms, accepted answers or the key
option's wordings), one below full points a "misconception" at the points given (a scored reading or a listed
misconception). The page first shows what would be added, as a diff of the quiz file, and why anything is
refused: the schema and the loader's checks, every other decision of this review and every answer the kit
scored by itself in this class (kit_scored.py): an addition that would make the kit score any decided answer
otherwise than it was decided is refused, with the answer, how many students wrote it, and both scores. Writing computes it again
from the files as they are then, and writes only when that is the very diff the teacher saw.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

from ..grade import grade_question, review_text
from ..learn import Candidate, diff, learn
from ..loader import load_quizzes
from ..review import score_problem


class Changed(ValueError):
    """The quiz file or the review changed since the diff was shown."""


def label(score: float, points: float) -> str:
    return "accept this reading" if score >= points else f"misconception at {score:g} of {points:g} point(s)"


def _sources(quizzes_dir: Path) -> dict[str, Path]:
    return {quiz_id: Path(quiz.source_path) for quiz_id, quiz in
            load_quizzes(quizzes_dir, formulas=False).items() if quiz.source_path}


def proposal(document: dict, quizzes_dir: Path, quiz_id: str, question_id: str, group: dict,
             points: float, kit: dict) -> tuple[dict, dict[str, str], dict[str, Path]]:
    """What keeping `group` would add: (what the page shows, quiz id -> new text, quiz id -> file). `kit`: the
    answers the kit scored by itself in the class (kit_scored.read_kit_scored)."""
    score = group.get("score")
    if score in (None, "") or score_problem(score, points):
        raise ValueError("score the group first: a decision is what is kept")
    sources = _sources(quizzes_dir)
    if quiz_id not in sources:
        raise ValueError(f"no quiz file for {quiz_id!r} in {quizzes_dir}")
    only = {(quiz_id, question_id, review_text(a)) for a in group.get("answers") or []}
    sources = {quiz_id: sources[quiz_id]}  # the group's quiz alone changes: the others are not read again
    candidates, changed = learn(document, sources, only, kit)
    shown_diff = diff(sources, changed)
    added = [c for c in candidates if not c.refused]
    shown = {"label": label(float(score), points), "diff": shown_diff,
             "digest": hashlib.sha256(shown_diff.encode("utf-8")).hexdigest(),
             "additions": [_what(c) for c in added],
             "refused": [_what(c) for c in candidates if c.refused],
             "file": str(sources[quiz_id]),
             "now_read": _now_read(document, quiz_id, question_id, changed, sources) if changed else 0}
    return shown, changed, sources


def _what(c: Candidate) -> str:
    """One line of what is added or refused, without the quiz and question the page already shows."""
    if c.kind == "none":
        return f"{c.answer!r}: {c.refused}"
    return c.describe().split(": ", 1)[1]


def _now_read(document: dict, quiz_id: str, question_id: str, changed: dict[str, str],
              sources: dict[str, Path]) -> int:
    """Waiting wordings of this question in the review that the quiz, with the additions, grades by itself."""
    from ..loader import quiz_from_data, read_yaml

    if quiz_id not in changed:
        return 0
    quiz = quiz_from_data(read_yaml(sources[quiz_id], changed[quiz_id]), sources[quiz_id], formulas=False)
    q = quiz.question(question_id)
    if q.grading == "code":
        return 0  # code is run in the sandbox when graded again; not here
    block = (document.get(quiz_id) or {}).get(question_id) or {}
    return sum(1 for g in block.get("groups") or [] if g.get("score") in (None, "")
               for a in g.get("answers") or [] if not grade_question(q, a).pending)


def write(changed: dict[str, str], sources: dict[str, Path], digest: str, shown_diff: str) -> list[Path]:
    """Write the additions, only if they are the diff the teacher was shown (`digest`)."""
    from ...results import write_atomic

    if hashlib.sha256(shown_diff.encode("utf-8")).hexdigest() != digest:
        raise Changed("the quiz file or the review changed since this diff was shown: look at it again")
    if not changed:
        raise ValueError("nothing to add: see why above")
    written = []
    for quiz_id, text in changed.items():  # one question's group: one quiz file
        try:
            write_atomic(sources[quiz_id], text)
        except OSError as exc:
            raise ValueError(f"{sources[quiz_id]} could not be written ({exc.strerror or exc}); "
                             "the quiz file is as it was") from None
        written.append(sources[quiz_id])
    return written
