"""Export a quiz to Moodle GIFT text (instructor copy, answers included).

What GIFT cannot carry is written as `//` comments: points, objective, and the note that
regex answers and keyword-rubric partial credit stay with this kit's own grader.
"""

from __future__ import annotations

from .model import Question, Quiz

# GIFT control characters; each must be preceded by a backslash inside text.
GIFT_SPECIAL = "~=#{}:"


def escape_gift(text: str) -> str:
    """Escape text for GIFT: backslash first (so we don't double-escape), then ~ = # { } :."""
    out = text.replace("\\", "\\\\")
    for char in GIFT_SPECIAL:
        out = out.replace(char, "\\" + char)
    # A blank line ends a GIFT question, so newlines are written as the \n escape.
    return out.replace("\r\n", "\n").replace("\n", "\\n")


def _number(value: float) -> str:
    return repr(value) if value != int(value) else str(int(value))


def _answer_block(q: Question) -> list[str]:
    feedback = f"\t####{escape_gift(q.explanation)}"
    if q.type == "true_false":
        return ["TRUE" if q.answer else "FALSE", feedback]
    if q.type == "numeric":
        return [f"#{_number(q.answer)}:{_number(q.tolerance)}", feedback]
    if q.type == "multiple_choice":
        choices = [f"\t{'=' if o.id == q.answer else '~'}{escape_gift(o.text)}" for o in q.options]
        return choices + [feedback]
    # short_answer: every accepted answer is worth full marks.
    return [f"\t={escape_gift(a)}" for a in dict.fromkeys(q.accepted)] + [feedback]


def _one_line(text: str) -> str:
    return " ".join(text.split())


def question_to_gift(q: Question) -> str:
    comments = [f"// {q.id} | {q.type} | {q.points:g} point(s) | {q.source}",
                f"// objective: {_one_line(q.objective)}"]
    if q.regex or q.rubric:
        comments.append("// note: regex answers and rubric partial credit are graded by the kit only")
    head = f"::{escape_gift(q.id)}::[plain]{escape_gift(q.prompt)} {{"
    block = _answer_block(q)
    if q.type in ("true_false", "numeric"):  # short answers fit on one line
        return "\n".join(comments + [head + block[0] + block[1].strip() + "}"])
    return "\n".join(comments + [head, *block, "}"])


def to_gift(quiz: Quiz) -> str:
    """The whole quiz as GIFT text; questions are separated by blank lines."""
    header = [
        f"// quiz: {quiz.id} | {_one_line(quiz.title)}",
        f"// lesson: {quiz.lesson}",
        "",
        f"$CATEGORY: $course$/{quiz.id}",
        "",
    ]
    return "\n".join(header) + "\n" + "\n\n".join(question_to_gift(q) for q in quiz.questions) + "\n"
