"""Grade student answers against a quiz.

Grading never raises for anything a student can put in a file: a broken answer file
scores 0 with a message, an odd value scores 0 for that question with feedback.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Callable, Mapping, Union

from .loader import load_answers
from .model import AnswerValue, ItemResult, Question, Quiz, QuizFormatError, QuizResult
from .normalize import keyword_in, normalize_answer, parse_number

# Floats like 0.1 + 0.2 must still hit a tolerance of exactly 0.
_FLOAT_SLACK = 1e-9

_TRUE_WORDS = {"true", "t", "yes", "y"}
_FALSE_WORDS = {"false", "f", "no", "n"}


def answer_file_name(quiz: Quiz) -> str:
    """Name of the answer file a student hands in for `quiz`: quiz_<quiz id>.yaml."""
    return f"quiz_{quiz.id}.yaml"


def _is_blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def _grade_multiple_choice(q: Question, given: Any) -> tuple[float, str]:
    if not isinstance(given, str):
        return 0.0, f"Answer with one option id ({', '.join(o.id for o in q.options)})."
    choice = given.strip().strip("()").rstrip(").").strip().casefold()
    option_ids = {o.id for o in q.options}
    if choice not in option_ids:
        # Accept the option's text too: students sometimes copy the option instead of its letter.
        by_text = {normalize_answer(o.text): o.id for o in q.options}
        choice = by_text.get(normalize_answer(given), "")
    if not choice:
        return 0.0, f"{given!r} is not one of the options {', '.join(sorted(option_ids))}."
    if choice == q.answer:
        return q.points, "Correct."
    return 0.0, f"Incorrect: you chose ({choice}) {q.option(choice).text}."


def _grade_true_false(q: Question, given: Any) -> tuple[float, str]:
    value: bool | None = given if isinstance(given, bool) else None
    if isinstance(given, str):
        word = given.strip().strip(".").casefold()
        value = True if word in _TRUE_WORDS else False if word in _FALSE_WORDS else None
    if value is None:
        return 0.0, f"Answer with true or false (got {given!r})."
    if value == q.answer:
        return q.points, "Correct."
    return 0.0, "Incorrect."


def _grade_numeric(q: Question, given: Any) -> tuple[float, str]:
    value = parse_number(given)
    if value is None:
        return 0.0, f"Could not read {given!r} as a number (write e.g. 0.125 or 1/8)."
    if abs(value - q.answer) <= q.tolerance + _FLOAT_SLACK * max(1.0, abs(q.answer)):
        return q.points, "Correct."
    return 0.0, f"Incorrect: {value:g} is not within {q.tolerance:g} of the expected value."


def _grade_short_answer(q: Question, given: Any) -> tuple[float, str]:
    if isinstance(given, bool) or not isinstance(given, (str, int, float)):
        return 0.0, "Answer with text."
    answer = normalize_answer(given)
    if answer in {normalize_answer(a) for a in q.accepted}:
        return q.points, "Correct."
    if any(re.fullmatch(pattern, answer) for pattern in q.regex):
        return q.points, "Correct."
    if not q.rubric:
        return 0.0, "Incorrect."
    hits = [item for item in q.rubric if any(keyword_in(k, answer) for k in item.keywords)]
    earned = min(q.points, sum(item.points for item in hits))
    if earned >= q.points:
        return q.points, "Correct (all key points mentioned)."
    if not hits:
        return 0.0, "Incorrect: none of the key points were mentioned."
    missed = [item.keywords[0] for item in q.rubric if item not in hits]
    return earned, (f"Partial credit {earned:g}/{q.points:g}: mentioned "
                    f"{', '.join(repr(i.keywords[0]) for i in hits)}; missing {', '.join(map(repr, missed))}.")


_GRADERS: dict[str, Callable[[Question, Any], tuple[float, str]]] = {
    "multiple_choice": _grade_multiple_choice,
    "true_false": _grade_true_false,
    "numeric": _grade_numeric,
    "short_answer": _grade_short_answer,
}


def _item(q: Question, given: AnswerValue, score: float, feedback: str) -> ItemResult:
    return ItemResult(
        question_id=q.id, score=score, max_score=q.points, given=given,
        correct_answer=q.correct_answer_text(), explanation=q.explanation, feedback=feedback,
    )


def grade_question(q: Question, given: AnswerValue) -> ItemResult:
    """Grade one answer. Blank answers score 0 with a 'no answer' note."""
    if _is_blank(given):
        return _item(q, None, 0.0, "No answer given.")
    try:
        score, feedback = _GRADERS[q.type](q, given)
    except Exception as exc:  # grading must never take the whole class down
        score, feedback = 0.0, f"Could not grade this answer ({type(exc).__name__}); ask your instructor."
    return _item(q, given, score, feedback)


def grade_quiz(quiz: Quiz, answers: Mapping[str, AnswerValue]) -> QuizResult:
    """Grade a mapping question id -> answer. Missing answers score 0; unknown ids are reported."""
    if not isinstance(answers, Mapping):
        return _zero_result(quiz, f"answers must map question ids to answers, got {type(answers).__name__}")
    items = tuple(grade_question(q, answers.get(q.id)) for q in quiz.questions)
    messages: list[str] = []
    unanswered = [item.question_id for item in items if item.given is None]
    if unanswered:
        messages.append(f"{len(unanswered)} question(s) not answered (0 points): {', '.join(unanswered)}")
    known = {q.id for q in quiz.questions}
    unknown = [str(key) for key in answers if key not in known]
    if unknown:
        messages.append(f"unknown question id(s) ignored: {', '.join(unknown)}")
    return QuizResult(quiz_id=quiz.id, items=items, messages=tuple(messages))


def _zero_result(quiz: Quiz, message: str) -> QuizResult:
    items = tuple(_item(q, None, 0.0, "Not graded: " + message.splitlines()[0]) for q in quiz.questions)
    return QuizResult(quiz_id=quiz.id, items=items, messages=(message,), problem=message)


def grade_answer_file(quiz: Quiz, path: Union[str, Path]) -> QuizResult:
    """Grade a student's answer file. A missing or malformed file scores 0 with a message."""
    try:
        answers = load_answers(path)
    except QuizFormatError as exc:
        return _zero_result(quiz, f"answer file could not be used, quiz scored 0:\n{exc}")
    except Exception as exc:  # e.g. a directory where the file should be
        return _zero_result(quiz, f"{path}: answer file could not be read ({exc}), quiz scored 0")
    return grade_quiz(quiz, answers)


MAX_ANSWER_BYTES = 256 << 10  # an answer file is a few KB; anything far larger is not one


def grade_submission(quiz: Quiz, submission_dir: Union[str, Path]) -> QuizResult:
    """Grade `<submission_dir>/quiz_<quiz id>.yaml`. A missing file, a link, or a file too large to be
    an answer file scores 0 with a message (links could point anywhere on the grading machine)."""
    name = answer_file_name(quiz)
    path = Path(submission_dir) / name
    if not path.exists() and not path.is_symlink():
        return _zero_result(quiz, f"no answer file {name} handed in, quiz scored 0")
    if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_ANSWER_BYTES:
        return _zero_result(quiz, f"{name} is not a regular file under {MAX_ANSWER_BYTES >> 10} KiB, quiz scored 0")
    return grade_answer_file(quiz, path)
