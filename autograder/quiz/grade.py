"""Grade student answers against a quiz.

Grading never raises for anything a student can put in a file: a broken answer costs that answer,
an odd value scores 0 for that question with feedback. Short answers are judged by meaning where it
can be computed (maths: symbolic equivalence; code: the tensors it computes, in the sandbox; numbers:
expressions and approximate phrasings); an answer that cannot be judged that way waits for the
instructor's review (`pending`), and the instructor's decision for its group is applied when there is one.
"""

from __future__ import annotations

import atexit
import re
import sys
import unicodedata
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Mapping, Protocol, Union

from .answers import AnswerSheet, read_answer_sheet
from .choices import read_choice, read_verdict
from .reasons import choice_doubt, verdict_doubt
from .slips import mended_reading
from .code_answers import CodeAnswer, CodeEvaluator, prepare
from .equivalence import Verdict, compare_formula, read_number, stated_values, with_binding
from .model import AnswerValue, ItemResult, Misconception, Question, Quiz, QuizFormatError, QuizResult
from .meaning import accepted_structures, lexicon, scored_structures
from .misconceptions import matching_choice, matching_formula, matching_number, matching_text, named
from .nonanswers import is_non_answer
from .normalize import normalize_answer
from .notation import Vocabulary
from .suggest import Suggestion, reading, rubric_score, suggest, why_not_pinned

# Floats like 0.1 + 0.2 must still hit a tolerance of exactly 0.
_FLOAT_SLACK = 1e-9

def answer_file_name(quiz: Quiz) -> str:
    """Name of the answer file a student hands in for `quiz`: quiz_<quiz id>.yaml."""
    return f"quiz_{quiz.id}.yaml"


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


def _is_blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def _grade_multiple_choice(q: Question, given: Any, context: GradingContext) -> Outcome:
    choice = read_choice(given, {o.id: o.text for o in q.options}, {o.id: o.also for o in q.options if o.also})
    if choice.unclear:
        return _judged_by_person(q, given, context, choice.unclear)
    if choice.unreadable:
        return Outcome(0.0, choice.unreadable)
    why = choice_doubt(q, choice.value, choice.reason, choice.restated) if choice.reason else ""
    if why:
        right = choice.value == q.answer
        return _judged_by_person(q, given, context, f"{given.strip()!r} gives the letter or text of ({choice.value}) with other words, and {why}",
                                 Suggestion(q.points if right else 0.0, f"the option is {'right' if right else 'wrong'};"
                                            f" {why}", None))
    if choice.value == q.answer:
        return Outcome(q.points, "Correct.")
    return _wrong(q, given, context, f"Incorrect: you chose ({choice.value}) {q.option(choice.value).text}.",
                  matching_choice(q, choice.value))


def _grade_true_false(q: Question, given: Any, context: GradingContext) -> Outcome:
    verdict = read_verdict(given, dict(q.verdicts), q.prompt)
    if verdict.unclear:
        suggested = None if verdict.value is None else Suggestion(
            q.points if verdict.value == q.answer else 0.0,
            f"the verdict is {'right' if verdict.value == q.answer else 'wrong'}; read the reason", None)
        return _judged_by_person(q, given, context, verdict.unclear, suggested)
    if verdict.unreadable:
        return Outcome(0.0, verdict.unreadable)
    why = verdict_doubt(q, verdict.value, verdict.reason) if verdict.reason else ""
    if why:
        right = verdict.value == q.answer
        return _judged_by_person(q, given, context, f"{given.strip()!r} gives a reason beside its verdict, and {why}",
                                 Suggestion(q.points if right else 0.0, f"the verdict is {'right' if right else 'wrong'};"
                                            f" {why}", None))
    return Outcome(q.points, "Correct.") if verdict.value == q.answer else Outcome(0.0, "Incorrect.")


def _grade_numeric(q: Question, given: Any, context: GradingContext) -> Outcome:
    return _unless_hedged(_read_numeric, q, _number_as_written(q, given), context)


def _number_as_written(q: Question, given: Any) -> Any:
    """A number answer as the sentence around it may have changed it: a full stop at its end ("0.25.", "I
    think 0.25."), capitals ("1/SQRT(16)": caps lock, a phone). Taken only when the answer as written does not
    read, and capitals only where no constant's name has one (then case cannot tell two names apart)."""
    if not isinstance(given, str) or _reads_as_number(q, given):
        return given
    text = given.strip()
    unstopped = text[:-1].rstrip() if text.endswith(".") and not text.endswith("..") else ""
    lowered = [t.lower() for t in (text, unstopped) if t] if not any(
        name != name.lower() for name, _ in q.constants) else []
    return next((form for form in (unstopped, *lowered) if form and _reads_as_number(q, form)), given)


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
        if name in constants and abs(constants[name] - value) > _FLOAT_SLACK * max(1.0, abs(value)):
            return _judged_by_person(q, given, context, "This answer is read by a person", Suggestion(
                None, f"it says {name} = {value:g}, where the question's {name} is {constants[name]:g}", None))
        if name not in constants and read_number(text, constants) is not None:
            # "0.25 with d_k = 64": the number does not use the name, so the binding is a claim of its own
            return _judged_by_person(q, given, context, "This answer is read by a person", Suggestion(
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
            return _judged_by_person(q, given, context, "This answer is read by a person",
                                     Suggestion(None, f"it states the expected number and also {said}", None))
        if None in claims:  # part of what it states cannot be read: that part may be the answer
            return _judged_by_person(q, given, context, f"The grader could not read all of {given!r} as numbers")
        value = claims[0]
        return _wrong(q, given, context, f"Incorrect: {value:g} is not within {q.tolerance:g} of the expected value.",
                      matching_number(q, value))
    value = read_number(text, constants)
    if value is None:
        return _judged_by_person(q, given, context, f"The grader could not read {given!r} as a number")
    if claims and claims[0] is not None and abs(claims[0] - value) > _FLOAT_SLACK * max(1.0, abs(value)):
        # "0.25 (one quarter)" read whole as 0.25 · 1/4: its one number and its whole say two things
        return _judged_by_person(q, given, context, "This answer is read by a person",
                                 Suggestion(None, f"read as {value:g} as a whole, but it writes {claims[0]:g}", None))
    if _within(q, value):
        said = _said_beside(text) if isinstance(text, str) else ""
        if said:  # "64, the same as the variance of each component": the number is right, the claim is words
            return _judged_by_person(q, given, context, "This answer is read by a person",
                                     Suggestion(q.points, f"the number is right; beside it the answer says "
                                                          f"\"{said}\", which a person weighs", None))
        return Outcome(q.points, "Correct.")
    message = f"Incorrect: {value:g} is not within {q.tolerance:g} of the expected value."
    listed = matching_number(q, value)
    if listed is None and isinstance(given, str) and any(
            _within(q, float(n)) for n in re.findall(r"(?<![\w.])-?\d+(?:\.\d+)?(?:e-?\d+)?", given)):
        # "d_k ** -0.5 with d_k = 16, so 0.25": the right number is written too; which one is the answer is
        # for a person to say, not for the first number read
        return _judged_by_person(q, given, context, "This answer is read by a person",
                                 Suggestion(None, f"read as {value:g}, but it also writes the expected number", None))
    return _wrong(q, given, context, message, listed)


# What may stand beside a number without saying anything of its own: hedges, "the answer", units of nothing.
_BESIDE = re.compile(r"(?:,|;|:|\s[-–—]\s|\s(?:which|that)\s+is\b)\s*(?P<said>.*\S)", re.IGNORECASE)
# (not reasons.HEDGES: "only", "always", "depends" qualify a claim; these only say how sure the writer is)
_SAYS_NOTHING = frozenset("i think guess believe maybe probably perhaps not sure about roughly approximately "
                          "approx around nearly so the answer is it that this je pense creo glaube vielleicht "
                          "peut etre quizas".split())


def _said_beside(text: str) -> str:
    """The words written after a number answer's number, when they say something ("" when they only hedge)."""
    found = _BESIDE.search(text)
    if found is None:
        return ""
    words = re.findall(r"[^\W\d_]+", found["said"].casefold())
    return found["said"] if any(w not in _SAYS_NOTHING for w in words) else ""


def _within(q: Question, value: float) -> bool:
    return abs(value - q.answer) <= q.tolerance + _FLOAT_SLACK * max(1.0, abs(q.answer))


def _wrong(q: Question, given: Any, context: GradingContext, message: str, listed: Misconception | None,
           computes: str | None = None) -> Outcome:
    """A wrong answer, scored only as the quiz declares (misconceptions.py): a listed misconception's points,
    or 0 where the question's wrong answers score 0; otherwise a person decides, with a suggestion."""
    if listed is not None and listed.points is not None:
        verdict = "Partial credit" if listed.points else "Incorrect"
        return Outcome(listed.points, f"{verdict}: {listed.says.rstrip('.')}.")
    if listed is not None:
        return _judged_by_person(q, given, context, "This answer is read by a person",
                                 Suggestion(rubric_score(q, given), named(listed), f"misconception: {listed.says}"))
    if q.wrong_answers == "zero" or q.type in ("multiple_choice", "true_false"):
        return Outcome(0.0, message)
    why = message.removeprefix("Incorrect: ").rstrip(".")
    return _judged_by_person(q, given, context, "This answer is read by a person",
                             Suggestion(0.0, f"{why}; it is none of the listed misconceptions", computes))


def _judged_by_person(q: Question, given: Any, context: GradingContext, why: str,
                      suggestion: Suggestion | None = None) -> Outcome:
    """An answer the grader cannot judge: the instructor's decision for its group, or pending review."""
    decision = context.decisions.get(context.quiz_id, q.id, review_text(given))
    if decision is not None:
        score = min(max(decision.score, 0.0), q.points)
        feedback = decision.feedback or ("Correct." if score >= q.points else
                                         "Partial credit." if score else "Incorrect.")
        return Outcome(score, f"{feedback} (graded by your instructor)")
    points = f"{q.points:g} point{'' if q.points == 1 else 's'}"
    return Outcome(0.0, f"{why.rstrip('.')}: waiting for your instructor's review ({points} pending).", pending=True,
                   suggestion=suggestion)


def rubric_suggestion(q: Question, given: Any) -> float | None:
    """What the keyword rubric would give (shown to the reviewing instructor as a suggestion, never awarded)."""
    return rubric_score(q, given)


def _grade_text(q: Question, given: Any, context: GradingContext) -> Outcome:
    """Exact accepted answers and the author's regexes, then answers that state an accepted answer's key
    terms in its order and nothing else (meaning.py); everything else is read by a person."""
    answer = normalize_answer(given)
    if answer in {normalize_answer(a) for a in q.accepted} or any(re.fullmatch(p, answer) for p in q.regex):
        return Outcome(q.points, "Correct.")
    meaning = reading(q, given)
    if meaning is not None and not meaning.unknown:
        accepted = accepted_structures(q.accepted, lexicon(q.terms, q.languages))
        typos = "".join(f" (read {wrong!r} as {right!r})" for wrong, right in meaning.corrected)
        if meaning.terms in accepted:
            return Outcome(q.points, f"Correct: it says what {accepted[meaning.terms]!r} says.{typos}")
        scored = scored_structures(q.scored, lexicon(q.terms, q.languages))
        if meaning.terms in scored:
            points, feedback = scored[meaning.terms]
            default = "Partial credit." if points else "Incorrect."
            return Outcome(points, f"{feedback or default}{typos}")
    listed = matching_text(q, given, meaning.terms if meaning is not None and not meaning.unknown else None)
    if listed is not None:
        return _wrong(q, given, context, "Incorrect.", listed)
    suggestion = suggest(q, given, why_not_pinned(meaning))
    return _judged_by_person(q, given, context, "This answer is read by a person", suggestion)


def _grade_maths(q: Question, given: Any, context: GradingContext) -> Outcome:
    if normalize_answer(given) in {normalize_answer(a) for a in q.accepted}:
        return Outcome(q.points, "Correct.")
    spec = q.maths
    vocabulary = Vocabulary(frozenset(spec.symbols), dict(spec.aliases))
    verdict = compare_formula(given, spec.answer, vocabulary, spec.factor)
    if verdict.equal is None and isinstance(given, str):
        # as the sentence may have changed it ("Sqrt(d_model)", "sqrt(d_k)."): only when it does not read as written
        text = given.strip()
        unstopped = text[:-1].rstrip() if text.endswith(".") and not text.endswith("..") else ""
        for form in (unstopped, *(t[:1].lower() + t[1:] for t in (text, unstopped) if t[:1].isupper())):
            again = compare_formula(form, spec.answer, vocabulary, spec.factor) if form else verdict
            if again.equal is not None:
                given, verdict = form, again
                break
    if verdict.equal is False:
        return _wrong(q, given, context, verdict.message, matching_formula(q, given), verdict.computes)
    return _from_verdict(q, given, context, verdict)


def _grade_code(q: Question, given: Any, context: GradingContext) -> Outcome:
    # Code is case-sensitive (`F.Softmax` does not exist): only spacing may differ from an accepted answer.
    if "".join(str(given).split()) in {"".join(a.split()) for a in q.accepted}:
        return Outcome(q.points, "Correct.")
    prepared = prepare(q, given)
    verdict = prepared if isinstance(prepared, Verdict) else context.code_verdict(q, prepared)
    if verdict.equal is False:
        listed = q.misconceptions[verdict.matched] if verdict.matched is not None else None
        return _wrong(q, given, context, verdict.message, listed, verdict.computes)
    return _from_verdict(q, given, context, verdict)


def _from_verdict(q: Question, given: Any, context: GradingContext, verdict: Verdict) -> Outcome:
    if verdict.equal is None:
        return _judged_by_person(q, given, context, verdict.message.split(";")[0], _slip_suggestion(q, given))
    return Outcome(q.points if verdict.equal else 0.0, verdict.message)


def _slip_suggestion(q: Question, given: Any) -> Suggestion | None:
    """An answer that does not run or read for a slip (slips.py): what it is once mended, for the reviewer;
    answers mended into the same answer share a group. Never credit on its own."""
    mended = mended_reading(q, given)
    if mended is None:
        return None
    changes = ", ".join(mended.changes)
    if mended.misconception is None:
        return Suggestion(q.points, f"with {changes} it is the accepted answer {mended.reads_as!r}; "
                                    "what a slip costs is the course's call", f"mended: {mended.reads_as}")
    listed = q.misconceptions[mended.misconception]
    return Suggestion(listed.points, f"with {changes} it is a listed misconception: {listed.says}",
                      f"mended misconception: {listed.says}")


def _grade_short_answer(q: Question, given: Any, context: GradingContext) -> Outcome:
    if isinstance(given, bool) or not isinstance(given, (str, int, float)):
        return Outcome(0.0, "Answer with text.")
    grader = {"maths": _grade_maths, "code": _grade_code, "text": _grade_text}[q.grading]
    return _unless_hedged(grader, q, given, context)


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


def _unless_hedged(grader, q: Question, given: Any, context: GradingContext) -> Outcome:
    if isinstance(given, str):
        bare = set_aside_hedges(given)
        if bare and bare != given.strip():
            outcome = grader(q, bare, context)
            if outcome.score >= q.points and not outcome.pending:
                return outcome
    return grader(q, given, context)


_GRADERS: dict[str, Callable[[Question, Any, GradingContext], Outcome]] = {
    "multiple_choice": _grade_multiple_choice,
    "true_false": _grade_true_false,
    "numeric": _grade_numeric,
    "short_answer": _grade_short_answer,
}


def _item(q: Question, given: AnswerValue, score: float, feedback: str, pending: bool = False,
          suggestion: Suggestion | None = None) -> ItemResult:
    hint = suggestion if pending and suggestion is not None else Suggestion(None, "", None)
    return ItemResult(
        question_id=q.id, score=score, max_score=q.points, given=given,
        correct_answer=q.correct_answer_text(), explanation=q.explanation, feedback=feedback, pending=pending,
        review_text=review_text(given) if pending else None,
        suggested_score=hint.score, suggestion=hint.why, meaning=hint.meaning,
    )


def grade_question(q: Question, given: AnswerValue, context: GradingContext | None = None) -> ItemResult:
    """Grade one answer. Blank answers score 0 with a 'no answer' note."""
    if _is_blank(given):
        return _item(q, None, 0.0, "No answer given.")
    if is_non_answer(given):
        return _item(q, given, 0.0, "No answer given: saying you do not know scores 0, as a blank answer does.")
    context = context or GradingContext()
    key = (context.quiz_id, q.id, type(given).__name__, str(given))
    outcome = context.memo.get(key)
    if outcome is None:
        try:
            outcome = _GRADERS[q.type](q, given, context)
        except Exception as exc:  # grading must never take the whole class down, nor cost the student
            # a grader bug: the answer goes to a person (neither earned nor lost), and the instructor is told
            print(f"grader: quiz question {q.id} could not be graded ({type(exc).__name__}: {exc}); "
                  "the answer waits for review", file=sys.stderr)
            outcome = Outcome(0.0, f"The grader failed on this answer (a problem of the grader, not of your "
                                   f"answer: {type(exc).__name__}); your instructor will read it.", pending=True)
        context.memo[key] = outcome
    return _item(q, given, outcome.score, outcome.feedback, outcome.pending, outcome.suggestion)


def grade_quiz(quiz: Quiz, answers: Mapping[str, AnswerValue], context: GradingContext | None = None,
               sheet: AnswerSheet | None = None) -> QuizResult:
    """Grade a mapping question id -> answer. Missing answers score 0; unknown ids are reported.
    `sheet` carries what reading the file found: answers that could not be read, notes, file messages."""
    if not isinstance(answers, Mapping):
        return _zero_result(quiz, f"answers must map question ids to answers, got {type(answers).__name__}")
    context = replace(context or GradingContext(), quiz_id=quiz.id)
    sheet = sheet or AnswerSheet()
    items = []
    for q in quiz.questions:
        if q.id in sheet.problems:
            items.append(_item(q, None, 0.0, sheet.problems[q.id]))
            continue
        item = grade_question(q, answers.get(q.id), context)
        if q.id in sheet.notes:
            item = replace(item, feedback=f"{item.feedback} Note: {sheet.notes[q.id]}")
        items.append(item)
    messages: list[str] = list(sheet.messages)
    unanswered = [item.question_id for item in items if item.given is None and item.question_id not in sheet.problems]
    if unanswered:
        messages.append(f"{len(unanswered)} question(s) not answered (0 points): {', '.join(unanswered)}")
    unreadable = [qid for qid in sheet.problems if qid in {q.id for q in quiz.questions}]
    if unreadable:
        messages.append(f"answer(s) that could not be read (0 points): {', '.join(unreadable)}")
    known = {q.id for q in quiz.questions}
    unknown = [str(key) for key in answers if key not in known and key not in quiz.retired]
    if unknown:
        messages.append(f"unknown question id(s) ignored: {', '.join(unknown)}")
    retired = [str(key) for key in answers if key in quiz.retired]
    if retired:
        messages.append(f"question(s) no longer in this quiz, not graded: {', '.join(retired)}")
    return QuizResult(quiz_id=quiz.id, items=tuple(items), messages=tuple(messages))


def _zero_result(quiz: Quiz, message: str) -> QuizResult:
    items = tuple(_item(q, None, 0.0, "Not graded: " + message.splitlines()[0]) for q in quiz.questions)
    return QuizResult(quiz_id=quiz.id, items=items, messages=(message,), problem=message)


def grade_answer_file(quiz: Quiz, path: Union[str, Path], context: GradingContext | None = None) -> QuizResult:
    """Grade a student's answer file. An unreadable file scores 0 with a message; a broken answer costs
    that answer only."""
    try:
        sheet = read_answer_sheet(path)
    except QuizFormatError as exc:
        return _zero_result(quiz, f"answer file could not be used, quiz scored 0:\n{exc}")
    except Exception as exc:  # e.g. a directory where the file should be
        return _zero_result(quiz, f"{path}: answer file could not be read ({exc}), quiz scored 0")
    return grade_quiz(quiz, sheet.answers, context, sheet)


MAX_ANSWER_BYTES = 256 << 10  # an answer file is a few KB; anything far larger is not one


def grade_submission(quiz: Quiz, submission_dir: Union[str, Path], context: GradingContext | None = None) -> QuizResult:
    """Grade `<submission_dir>/quiz_<quiz id>.yaml`. A missing file, a link, or a file too large to be
    an answer file scores 0 with a message (links could point anywhere on the grading machine)."""
    path = answer_path(quiz, submission_dir)
    if isinstance(path, str):
        return _zero_result(quiz, path)
    return grade_answer_file(quiz, path, context)


def answer_path(quiz: Quiz, submission_dir: Union[str, Path]) -> Path | str:
    """The answer file to read, or why there is none to read."""
    name = answer_file_name(quiz)
    path = Path(submission_dir) / name
    if not path.exists() and not path.is_symlink():
        return f"no answer file {name} handed in, quiz scored 0"
    if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_ANSWER_BYTES:
        return f"{name} is not a regular file under {MAX_ANSWER_BYTES >> 10} KiB, quiz scored 0"
    return path
