"""Student-facing versions of a quiz: no answers, no explanations, no rubric.

Built from an allow-list of keys (not by deleting answer keys) so that a key added to
the quiz format later cannot leak into the handout by accident.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple, Union

import yaml

from .grade import answer_file_name
from .model import Question, Quiz

# The only question keys a student ever sees. Not even `objective`: some objectives
# quote an answer (e.g. "masks as score surgery (−∞ before softmax)").
STUDENT_QUESTION_KEYS = ("id", "type", "prompt", "points", "options")

_TYPE_LABELS = {
    "multiple_choice": "multiple choice",
    "true_false": "true/false",
    "short_answer": "short answer",
    "numeric": "numeric",
}
_HOW_TO_ANSWER = {
    "multiple_choice": "the option letter",
    "true_false": "true or false",
    "short_answer": "a short text",
    "numeric": "a number or an arithmetic expression (e.g. 1/8 or 2^-3)",
}


def _how_to_answer(q: Question) -> str:
    if q.type == "short_answer" and q.code:
        return "one PyTorch expression (or the formula in plain-text maths)"
    if q.type == "short_answer" and q.maths:
        return "a formula (plain text, Unicode or LaTeX: e.g. a^2/b, a²/b or \\frac{a^2}{b})"
    return _HOW_TO_ANSWER[q.type]


class StudentFiles(NamedTuple):
    questions_yaml: Path
    markdown: Path
    answer_template: Path


def _points(q: Question) -> str:
    return f"{q.points:g} pt" + ("" if q.points == 1 else "s")


def student_question(q: Question) -> dict[str, Any]:
    points = int(q.points) if q.points == int(q.points) else q.points
    data: dict[str, Any] = {"id": q.id, "type": q.type, "prompt": q.prompt, "points": points}
    if q.options:
        data["options"] = [{"id": o.id, "text": o.text} for o in q.options]
    return data


def student_quiz_data(quiz: Quiz) -> dict[str, Any]:
    """The quiz as plain data, with everything that gives an answer away left out."""
    return {
        "id": quiz.id,
        "title": quiz.title,
        "lesson": quiz.lesson_name,
        "answer_file": answer_file_name(quiz),
        "questions": [student_question(q) for q in quiz.questions],
    }


def to_student_yaml(quiz: Quiz) -> str:
    return yaml.safe_dump(student_quiz_data(quiz), sort_keys=False, allow_unicode=True, width=100)


def to_markdown(quiz: Quiz) -> str:
    """A readable handout of the questions."""
    lines = [
        f"# {quiz.title}",
        "",
        f"Lesson: {quiz.lesson_name} · {len(quiz.questions)} questions · {quiz.max_score:g} points",
        "",
        f"Write your answers in `{answer_file_name(quiz)}` in your submission folder "
        "(a template with every question id is provided).",
        "",
    ]
    for number, q in enumerate(quiz.questions, start=1):
        lines += [f"## {number}. `{q.id}` — {_TYPE_LABELS[q.type]} ({_points(q)})", "", q.prompt, ""]
        lines += [f"- **({o.id})** {o.text}" for o in q.options]
        if q.options:
            lines.append("")
        lines += [f"*Answer with {_how_to_answer(q)}.*", ""]
    return "\n".join(lines)


def _comment(text: str, indent: str = "") -> list[str]:
    return [f"# {indent}{line}".rstrip() for line in text.splitlines()]


def answer_template(quiz: Quiz) -> str:
    """YAML answer file: every question id, no answer yet, the prompt as comments.

    Short answers are block scalars (`id: |-` with the answer on the indented line below), the one YAML
    form in which backslashes, colons and quotes need no escaping: LaTeX such as \\sqrt{d_k} or an answer
    with a colon is safe there. Other answers are plain values after the colon."""
    lines = [
        f"# Answers for: {quiz.title}",
        f"# Hand this file in as {answer_file_name(quiz)}, next to your notebooks (see README.md).",
        "#   multiple choice: the option letter after the colon, e.g.  <id>: c",
        "#   true/false:      true or false,                     e.g.  <id>: false",
        "#   numeric:         a number or an expression,          e.g.  <id>: 3/4   (0,75 and 2^-1 + 1/4 work too)",
        "#   short answer:    on the line BELOW `id: |-`, indented by two spaces. Anything goes there:",
        "#                    backslashes, colons and quotes, e.g.  \\frac{a^2}{b}  or  x: \"y\"",
        "",
    ]
    for q in quiz.questions:
        lines.append(f"# {q.id} ({_TYPE_LABELS[q.type]}, {_points(q)})")
        lines += _comment(q.prompt)
        for o in q.options:
            lines += _comment(f"({o.id}) {o.text}", indent="  ")
        lines += [f"{q.id}: |-", "  ", ""] if q.type == "short_answer" else [f"{q.id}:", ""]
    return "\n".join(lines)


def write_student_files(quiz: Quiz, out_dir: Union[str, Path]) -> StudentFiles:
    """Write <id>.questions.yaml, <id>.md and the answer template quiz_<id>.yaml to out_dir."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    files = StudentFiles(
        questions_yaml=out / f"{quiz.id}.questions.yaml",
        markdown=out / f"{quiz.id}.md",
        answer_template=out / answer_file_name(quiz),
    )
    files.questions_yaml.write_text(to_student_yaml(quiz), encoding="utf-8")
    files.markdown.write_text(to_markdown(quiz), encoding="utf-8")
    files.answer_template.write_text(answer_template(quiz), encoding="utf-8")
    return files
