"""Export a quiz as a Canvas-importable QTI 1.2 zip, built with text2qti.

text2qti (pin: text2qti==0.8.0) turns its Markdown-like quiz text into the zip Canvas
expects (imsmanifest.xml + assessment XML + assessment_meta.xml) and supports all four
of our question types: multiple choice, true/false, short answer (fill-in-the-blank with
several accepted answers) and numerical (value ± margin). So we only render that text.

Not carried over (QTI short answers are exact-match lists): regex answers, keyword-rubric
partial credit and this kit's maths normalisation. Canvas compares short answers
case-insensitively only, so the export lists every accepted spelling.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Union

from .model import Question, Quiz, QuizFormatError

# Characters Python-Markdown (with text2qti's extensions) lets us backslash-escape;
# `$` is text2qti's own LaTeX delimiter and has its own `\$` escape.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|\"'>$])")
_INDENT = " " * 4  # text2qti continues a multi-line item on lines indented to its content


def escape_markdown(text: str) -> str:
    """Make text render literally through text2qti's Markdown (no emphasis, links, maths)."""
    text = text.replace("&", "&amp;").replace("<", "&lt;")  # entities survive Markdown as-is
    text = _MARKDOWN_SPECIAL.sub(r"\\\1", text)
    return ("\n" + _INDENT).join(line.strip() for line in text.strip().splitlines())


def _single_line(text: str) -> str:
    # Short answers, titles and numbers are single-line fields in text2qti.
    return " ".join(text.split())


def _points(q: Question) -> str:
    if (q.points * 2) != int(q.points * 2):
        raise QuizFormatError(None, [(f"question {q.id}", f"QTI export needs whole or half points, got {q.points:g}")])
    return f"{q.points:g}"


def _numeric_line(q: Question) -> str:
    if min(abs(q.answer - q.tolerance), abs(q.answer + q.tolerance)) < 1e-4:
        # text2qti/Canvas limit: every acceptable value must have magnitude >= 0.0001.
        raise QuizFormatError(None, [(f"question {q.id}", "QTI export cannot represent a numeric "
                                                          "answer range that reaches 0")])
    return f"=   {q.answer!r} +- {q.tolerance!r}"


def question_to_text2qti(q: Question, number: int) -> str:
    lines = [
        f"Title: {_single_line(q.id)}",
        f"Points: {_points(q)}",
        f"{f'{number}.':<4}{escape_markdown(q.prompt)}",
        f"... {escape_markdown(q.explanation)}",  # general feedback, shown after submission
    ]
    if q.type == "multiple_choice":
        for o in q.options:
            marker = f"*{o.id})" if o.id == q.answer else f"{o.id})"
            lines.append(f"{marker:<4}{escape_markdown(o.text)}")
    elif q.type == "true_false":
        # Exactly the choices "True"/"False" make text2qti emit a true_false_question.
        lines += ["*a) True", "b)  False"] if q.answer else ["a)  True", "*b) False"]
    elif q.type == "numeric":
        lines.append(_numeric_line(q))
    else:
        for accepted in dict.fromkeys(_single_line(a) for a in q.accepted):
            lines.append(f"*   {accepted}")
    return "\n".join(lines)


def to_text2qti(quiz: Quiz) -> str:
    """The quiz in text2qti's plain-text format (answers included: instructor copy)."""
    header = [
        f"Quiz title: {_single_line(quiz.title)}",
        f"Quiz description: {escape_markdown(f'Knowledge check for lesson {quiz.lesson} (quiz id {quiz.id}).')}",
        "",
    ]
    body = "\n\n".join(question_to_text2qti(q, n) for n, q in enumerate(quiz.questions, start=1))
    return "\n".join(header) + "\n" + body + "\n"


def write_qti(quiz: Quiz, path: Union[str, Path]) -> Path:
    """Write a Canvas QTI 1.2 zip for `quiz` to `path` and return the path."""
    try:
        from text2qti.config import Config
        from text2qti.err import Text2qtiError
        from text2qti.qti import QTI
        from text2qti.quiz import Quiz as Text2qtiQuiz
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("QTI export needs text2qti: pip install text2qti==0.8.0") from exc

    text = to_text2qti(quiz)
    try:
        # A bare Config() uses defaults and never reads or writes ~/.text2qti.bespon.
        parsed = Text2qtiQuiz(text, config=Config(), source_name=quiz.source_path or quiz.id)
    except Text2qtiError as exc:
        raise QuizFormatError(quiz.source_path, [("", f"QTI export failed: {exc}")]) from exc
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    QTI(parsed).save(out)
    return out
