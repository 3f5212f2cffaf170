"""Export a quiz as Moodle XML (Question bank > Import > Moodle XML format), points and partial credit kept.

Per question: <defaultgrade> carries its points, every <answer> its `fraction` (percent of the points).
- multiple choice -> multichoice (single answer; the key 100, the other options 0);
- true/false -> truefalse; numeric -> numerical (value and tolerance);
- short answers graded by meaning here (maths, code) -> shortanswer listing the accepted spellings at 100
  (Moodle compares text, so other notations need a manual regrade there);
- free-text short answers -> essay, graded by hand in Moodle as in the kit: the grader information lists
  the accepted answers and the keyword rubric with the points of each item, i.e. the partial credit.
Built with the standard library's ElementTree (escaping included); text is HTML with line breaks kept.
"""
from __future__ import annotations

import html
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Union

from .model import Question, Quiz, QuizFormatError

# The fractions Moodle's importer accepts (question/format.php); anything else is rejected or rounded.
MOODLE_FRACTIONS = ("100", "90", "83.33333", "80", "75", "70", "66.66667", "60", "50", "40", "33.33333", "30",
                    "25", "20", "16.66667", "14.28571", "12.5", "11.11111", "10", "5", "0")


def moodle_fraction(part: float, whole: float) -> str:
    """`part` of `whole` points as a fraction Moodle accepts, e.g. 1 of 2 -> "50"."""
    percent = 100.0 * part / whole
    for allowed in MOODLE_FRACTIONS:
        if abs(percent - float(allowed)) < 1e-4:
            return allowed
    raise QuizFormatError(None, [("", f"Moodle cannot give {part:g} of {whole:g} points ({percent:g}%)")])


def _html(text: str) -> str:
    return "<br>".join(html.escape(line) for line in text.strip().splitlines())


def _text(parent: ET.Element, tag: str, text: str, fmt: str | None = "html") -> ET.Element:
    element = ET.SubElement(parent, tag, {"format": fmt} if fmt else {})
    ET.SubElement(element, "text").text = text
    return element


def _answer(parent: ET.Element, fraction: str, text: str, fmt: str | None = "html") -> ET.Element:
    answer = ET.SubElement(parent, "answer", {"fraction": fraction, **({"format": fmt} if fmt else {})})
    ET.SubElement(answer, "text").text = text
    _text(answer, "feedback", "")
    return answer


def grader_information(q: Question) -> str:
    lines = [f"Full marks ({q.points:g} points) for, e.g.:"] + [f"- {a}" for a in q.accepted]
    if q.rubric:
        lines.append("Partial credit, per key point mentioned:")
        lines += [f"- {item.points:g} point(s): {' / '.join(item.keywords)}" for item in q.rubric]
    if q.misconception:
        lines.append(f"No credit for the misconception: {q.misconception}")
    return _html("\n".join(lines))


def _question(quiz_element: ET.Element, q: Question) -> None:
    kind = {"multiple_choice": "multichoice", "true_false": "truefalse", "numeric": "numerical"}.get(q.type)
    if kind is None:
        kind = "shortanswer" if (q.maths or q.code) else "essay"
    element = ET.SubElement(quiz_element, "question", {"type": kind})
    ET.SubElement(ET.SubElement(element, "name"), "text").text = q.id
    _text(element, "questiontext", _html(q.prompt))
    _text(element, "generalfeedback", _html(q.explanation))
    ET.SubElement(element, "defaultgrade").text = f"{q.points:g}"
    ET.SubElement(element, "penalty").text = "0"
    ET.SubElement(element, "hidden").text = "0"
    ET.SubElement(element, "idnumber").text = q.id
    if kind == "multichoice":
        ET.SubElement(element, "single").text = "true"
        ET.SubElement(element, "shuffleanswers").text = "false"
        ET.SubElement(element, "answernumbering").text = "abc"
        for option in q.options:
            _answer(element, moodle_fraction(q.points if option.id == q.answer else 0, q.points), _html(option.text))
    elif kind == "truefalse":
        _answer(element, "100" if q.answer else "0", "true", fmt="moodle_auto_format")
        _answer(element, "0" if q.answer else "100", "false", fmt="moodle_auto_format")
    elif kind == "numerical":
        answer = _answer(element, "100", repr(q.answer), fmt=None)
        ET.SubElement(answer, "tolerance").text = repr(q.tolerance)
    elif kind == "shortanswer":
        ET.SubElement(element, "usecase").text = "0"
        for accepted in dict.fromkeys(q.accepted):
            _answer(element, "100", accepted, fmt="moodle_auto_format")
    else:
        ET.SubElement(element, "responseformat").text = "plain"
        ET.SubElement(element, "responserequired").text = "1"
        ET.SubElement(element, "responsefieldlines").text = "5"
        _text(element, "graderinfo", grader_information(q))
        _text(element, "responsetemplate", "")


def to_moodle_xml(quiz: Quiz) -> str:
    root = ET.Element("quiz")
    category = ET.SubElement(root, "question", {"type": "category"})
    ET.SubElement(ET.SubElement(category, "category"), "text").text = f"$course$/{quiz.id}"
    _text(category, "info", _html(f"{quiz.title} (lesson: {quiz.lesson_name})"))
    for question in quiz.questions:
        _question(root, question)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def write_moodle_xml(quiz: Quiz, path: Union[str, Path]) -> Path:
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(to_moodle_xml(quiz), encoding="utf-8")
    return out
