"""Grade student answers against a quiz.

Grading never raises for anything a student can put in a file: a broken answer costs that answer,
an odd value scores 0 for that question with feedback. Short answers are judged by meaning where it
can be computed (maths: symbolic equivalence; code: the tensors it computes, in the sandbox; numbers:
expressions and approximate phrasings); an answer that cannot be judged that way waits for the
instructor's review (`pending`), and the instructor's decision for its group is applied when there is one.
"""

from __future__ import annotations

import re
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Mapping, Union

from .answers import AnswerSheet, read_answer_sheet
from .choices import read_choice, read_verdict
from .reasons import choice_doubt, verdict_doubt
from .slips import mended_reading
from .code_answers import prepare
from .equivalence import Verdict, compare_formula
from .model import AnswerValue, ItemResult, Question, Quiz, QuizFormatError, QuizResult
from .meaning import accepted_structures, lexicon, scored_structures
from .misconceptions import matching_choice, matching_formula, matching_text
from .numbers import grade_numeric
from .outcome import (Decision, Decisions, GradingContext, NoDecisions, Outcome, judged_by_person,  # noqa: F401
                      review_text, set_aside_hedges, shared_evaluator, unless_hedged, wrong_answer)
from .nonanswers import is_non_answer
from .normalize import normalize_answer, sentence_forms
from .notation import Vocabulary
from .suggest import Suggestion, reading, rubric_score, suggest, why_not_pinned

NO_ANSWER_FILE = "no answer file "  # opens the problem of a quiz whose answer file was not handed in


def answer_file_name(quiz: Quiz) -> str:
    """Name of the answer file a student hands in for `quiz`: quiz_<quiz id>.yaml."""
    return f"quiz_{quiz.id}.yaml"


def _is_blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def _grade_multiple_choice(q: Question, given: Any, context: GradingContext) -> Outcome:
    choice = read_choice(given, {o.id: o.text for o in q.options}, {o.id: o.also for o in q.options if o.also})
    if choice.several:  # "a or c", "b and c": one option is asked for; every labelled teacher gives it 0
        return Outcome(0.0, f"Incorrect: you named {' and '.join(f'({o})' for o in choice.several)}; "
                            "answer with one option.")
    if choice.unclear:  # 0 only for an answer that reads as one wrong option, or as several
        return judged_by_person(q, given, context, choice.unclear)
    why = choice_doubt(q, choice.value, choice.reason, choice.restated, str(given)) if choice.reason else ""
    if why and q.reasons == "choice":  # the option alone decides; the teacher sees the reason
        right = choice.value == q.answer
        return Outcome(q.points if right else 0.0, "Correct." if right else
                       f"Incorrect: you chose ({choice.value}) {q.option(choice.value).text}.",
                       noted=f"scored by its option ({choice.value}); {why}")
    if why:
        right = choice.value == q.answer
        return judged_by_person(q, given, context, f"{given.strip()!r} gives the letter or text of ({choice.value}) with other words, and {why}",
                                 Suggestion(q.points if right else 0.0, f"the option is {'right' if right else 'wrong'};"
                                            f" {why}", None, certain=not right))  # a wrong option: 0, whatever its reason
    if choice.value == q.answer:
        return Outcome(q.points, "Correct.")
    return wrong_answer(q, given, context, f"Incorrect: you chose ({choice.value}) {q.option(choice.value).text}.",
                  matching_choice(q, choice.value))


def _grade_true_false(q: Question, given: Any, context: GradingContext) -> Outcome:
    verdict = read_verdict(given, dict(q.verdicts), q.prompt)
    if verdict.unclear:
        suggested = None if verdict.value is None else Suggestion(
            q.points if verdict.value == q.answer else 0.0,
            f"the verdict is {'right' if verdict.value == q.answer else 'wrong'}; read the reason", None,
            certain=verdict.value != q.answer)
        return judged_by_person(q, given, context, verdict.unclear, suggested)
    why = verdict_doubt(q, verdict.value, verdict.reason, str(given)) if verdict.reason else ""
    if why and q.reasons == "choice":  # the verdict alone decides; the teacher sees the reason
        right = verdict.value == q.answer
        return Outcome(q.points if right else 0.0, "Correct." if right else "Incorrect.",
                       noted=f"scored by its verdict ({'true' if verdict.value else 'false'}); {why}")
    if why:
        right = verdict.value == q.answer
        return judged_by_person(q, given, context, f"{given.strip()!r} gives a reason beside its verdict, and {why}",
                                 Suggestion(q.points if right else 0.0, f"the verdict is {'right' if right else 'wrong'};"
                                            f" {why}", None, certain=not right))
    return Outcome(q.points, "Correct.") if verdict.value == q.answer else Outcome(0.0, "Incorrect.")


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
        return wrong_answer(q, given, context, "Incorrect.", listed)
    suggestion = suggest(q, given)
    return judged_by_person(q, given, context, "This answer is read by a person", suggestion)


def _grade_maths(q: Question, given: Any, context: GradingContext) -> Outcome:
    if normalize_answer(given) in {normalize_answer(a) for a in q.accepted}:
        return Outcome(q.points, "Correct.")
    spec = q.maths
    vocabulary = Vocabulary(frozenset(spec.symbols), dict(spec.aliases))
    verdict = compare_formula(given, spec.answer, vocabulary, spec.factor)
    if verdict.equal is None and isinstance(given, str):
        for form in sentence_forms(given):  # "Sqrt(d_model)", "sqrt(d_k).": only when it does not read as written
            again = compare_formula(form, spec.answer, vocabulary, spec.factor)
            if again.equal is not None:
                given, verdict = form, again
                break
    if verdict.equal is False:
        return wrong_answer(q, given, context, verdict.message, matching_formula(q, given), verdict.computes)
    return _from_verdict(q, given, context, verdict)


def _grade_code(q: Question, given: Any, context: GradingContext) -> Outcome:
    # Code is case-sensitive (`F.Softmax` does not exist): only spacing may differ from an accepted answer.
    if "".join(str(given).split()) in {"".join(a.split()) for a in q.accepted}:
        return Outcome(q.points, "Correct.")
    prepared = prepare(q, given)
    verdict = prepared if isinstance(prepared, Verdict) else context.code_verdict(q, prepared)
    if verdict.equal is False:
        listed = q.misconceptions[verdict.matched] if verdict.matched is not None else None
        return wrong_answer(q, given, context, verdict.message, listed, verdict.computes)
    return _from_verdict(q, given, context, verdict)


def _from_verdict(q: Question, given: Any, context: GradingContext, verdict: Verdict) -> Outcome:
    if verdict.equal is None:
        why = verdict.message.split(";")[0]
        return judged_by_person(q, given, context, why, _slip_suggestion(q, given) or _unread_suggestion(q, why))
    return Outcome(q.points if verdict.equal else 0.0, verdict.message)


def _unread_suggestion(q: Question, why: str) -> Suggestion:
    """A formula or code answer the grader could not read or run, and no slip explains: as written it computes
    nothing (the hint is 0), and the reason says what was read, leaving what it means to the teacher."""
    return Suggestion(0.0, f"the grader could not compute it as written ({why[:1].lower() + why[1:].rstrip('.')})",
                      None)


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
    if isinstance(given, bool) or not isinstance(given, (str, int, float)):  # a YAML yes/no: not read as text
        return judged_by_person(q, given, context, f"The grader could not read {given!r} as this question's answer")
    grader = {"maths": _grade_maths, "code": _grade_code, "text": _grade_text}[q.grading]
    return unless_hedged(grader, q, given, context)


_GRADERS: dict[str, Callable[[Question, Any, GradingContext], Outcome]] = {
    "multiple_choice": _grade_multiple_choice,
    "true_false": _grade_true_false,
    "numeric": grade_numeric,
    "short_answer": _grade_short_answer,
}


def _item(q: Question, given: AnswerValue, score: float, feedback: str, pending: bool = False,
          suggestion: Suggestion | None = None, noted: str = "") -> ItemResult:
    hint = suggestion if pending and suggestion is not None else Suggestion(None, "", None)
    return ItemResult(
        question_id=q.id, score=score, max_score=q.points, given=given,
        correct_answer=q.correct_answer_text(), explanation=q.explanation, feedback=feedback, pending=pending,
        review_text=review_text(given) if pending else None,
        suggested_score=hint.score, suggestion=hint.why, meaning=hint.meaning, noted=noted,
        suggestion_certain=hint.certain and hint.score is not None,
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
    return _item(q, given, outcome.score, outcome.feedback, outcome.pending, outcome.suggestion, outcome.noted)


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
        return f"{NO_ANSWER_FILE}{name} handed in, quiz scored 0"
    if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_ANSWER_BYTES:
        return f"{name} is not a regular file under {MAX_ANSWER_BYTES >> 10} KiB, quiz scored 0"
    return path
