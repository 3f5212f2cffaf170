"""What grading one answer comes to, and what every answer type shares on the way there.

An Outcome (score, feedback, whether a person must read it, the reviewer's hint); the instructor's review
decisions and the context grading runs in (code verdicts, a memo); the two ways an answer leaves the
kit's own judgement: `judged_by_person` (the decision for its group, or pending) and `wrong_answer` (scored
only as the quiz declares); and hedges around an answer ("I think X?"), which are set aside when X is right.
"""
from __future__ import annotations

import atexit
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any, Protocol

from .code_answers import CodeAnswer, CodeEvaluator
from .equivalence import Verdict
from .misconceptions import named
from .model import Misconception, Question
from .suggest import Suggestion, rubric_score

# Ends the feedback of an answer scored by the instructor's review decision (renderers count such answers).
REVIEWED = "(graded by your instructor)"

# Floats like 0.1 + 0.2 must still hit a tolerance of exactly 0.
FLOAT_SLACK = 1e-9


def review_text(given: object) -> str:
    """An answer as the review groups it: Unicode-normalised, case-folded, spacing collapsed."""
    text = " ".join(unicodedata.normalize("NFKC", str(given)).casefold().split())
    return text.rstrip(".").strip()


@dataclass(frozen=True)
class Decision:
    """The instructor's verdict on one group of answers."""
    score: float
    feedback: str = ""


class Decisions(Protocol):
    def get(self, quiz_id: str, question_id: str, text: str) -> Decision | None: ...


class NoDecisions:
    def get(self, quiz_id: str, question_id: str, text: str) -> Decision | None:
        return None


_SHARED: list[CodeEvaluator] = []


def shared_evaluator() -> CodeEvaluator:
    """One sandbox for code answers graded outside a class run (tests, the API), started on first use."""
    if not _SHARED:
        _SHARED.append(CodeEvaluator())
        atexit.register(_SHARED[0].close)
    return _SHARED[0]


@dataclass
class GradingContext:
    """What grading a short answer may need beyond the answer: code verdicts and review decisions."""
    evaluator: CodeEvaluator | None = None
    decisions: Decisions = field(default_factory=NoDecisions)
    quiz_id: str = ""
    # Outcomes by (quiz, question, answer): a class shares answers, and sympy is not free.
    memo: dict = field(default_factory=dict)

    def code_verdict(self, question: Question, answer: CodeAnswer) -> Verdict:
        evaluator = self.evaluator or shared_evaluator()
        verdict = evaluator.verdict(answer.key)
        if verdict is None:
            evaluator.evaluate([(question, answer)])
            verdict = evaluator.verdict(answer.key)
        return verdict


@dataclass(frozen=True)
class Outcome:
    score: float
    feedback: str
    pending: bool = False
    suggestion: Suggestion | None = None  # pending free text: the reviewer's hint
    noted: str = ""                       # scored, and shown to the teacher: why its reason may contradict the key


def wrong_answer(q: Question, given: Any, context: GradingContext, message: str, listed: Misconception | None,
           computes: str | None = None) -> Outcome:
    """A wrong answer, scored only as the quiz declares (misconceptions.py): a listed misconception's points,
    or 0 where the question's wrong answers score 0; otherwise a person decides, with a suggestion."""
    if listed is not None and listed.points is not None:
        verdict = "Partial credit" if listed.points else "Incorrect"
        return Outcome(listed.points, f"{verdict}: {listed.says.rstrip('.')}.")
    if listed is not None:  # formulas and code have no rubric: a wrong answer's hint is 0, the teacher's to raise
        rubric = rubric_score(q, given)
        return judged_by_person(q, given, context, "This answer is read by a person",
                                 Suggestion(0.0 if rubric is None else rubric, named(listed),
                                            f"misconception: {listed.says}"))
    if q.wrong_answers == "zero" or q.type in ("multiple_choice", "true_false"):
        return Outcome(0.0, message)
    why = message.removeprefix("Incorrect: ").rstrip(".")
    return judged_by_person(q, given, context, "This answer is read by a person",
                             Suggestion(0.0, f"{why}; it is none of the listed misconceptions", computes))


def judged_by_person(q: Question, given: Any, context: GradingContext, why: str,
                      suggestion: Suggestion | None = None) -> Outcome:
    """An answer the grader cannot judge: the instructor's decision for its group, or pending review."""
    decision = context.decisions.get(context.quiz_id, q.id, review_text(given))
    if decision is not None:
        score = min(max(decision.score, 0.0), q.points)
        feedback = decision.feedback or ("Correct." if score >= q.points else
                                         "Partial credit." if score else "Incorrect.")
        return Outcome(score, f"{feedback} {REVIEWED}")
    points = f"{q.points:g} point{'' if q.points == 1 else 's'}"
    return Outcome(0.0, f"{why.rstrip('.')}: waiting for your instructor's review ({points} pending).", pending=True,
                   suggestion=suggestion)


# A hedge around an answer ("I think 0.25", "maybe 1/8?", "sqrt(d_k), not sure", "probably a raw compatibility
# between query i and key j"): the answer it hedges is what is graded when that answer is right (teachers
# give a right answer its points however sure its writer was); anything else is graded as written, so a
# hedge inside an answer, or around a wrong one, still goes to a person.
_HEDGE_BEFORE = re.compile(r"^(?:i\s+think|i\s+guess|i\s+believe|maybe|probably|perhaps|je\s+pense(?:\s+que)?|"
                           r"peut-[êe]tre|creo(?:\s+que)?|quiz[áa]s?|vielleicht|ich\s+glaube|wahrscheinlich)"
                           r"(?:\s*[,:]?\s+(?:it'?s|it\s+is|c'est|es\s+ist|es))?\s*[,:]?\s+", re.I)
_HEDGE_AFTER = re.compile(r"(?:\s*\?*\s*[,;]?\s*(?:i\s+think|maybe|probably|not\s+sure|je\s+pense|creo|glaube\s+ich)\.?)?"
                          r"\s*(?:\?+\.?)?\s*$", re.I)  # "...?" and "...?." (a full stop after it)


def set_aside_hedges(text: str) -> str:
    """The answer a hedge wraps ("I think it's X?" -> "X"); the text itself when no hedge wraps it."""
    return _HEDGE_AFTER.sub("", _HEDGE_BEFORE.sub("", text.strip()), count=1).strip()


def unless_hedged(grader, q: Question, given: Any, context: GradingContext) -> Outcome:
    if isinstance(given, str):
        bare = set_aside_hedges(given)
        if bare and bare != given.strip():
            outcome = grader(q, bare, context)
            if outcome.score >= q.points and not outcome.pending:
                return outcome
    return grader(q, given, context)
