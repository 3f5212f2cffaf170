"""Read a student's answer file (a YAML mapping from question id to answer) one answer at a time.

A file that parses is used as it is. When it does not (a LaTeX answer in double quotes, an unquoted
colon, an answer typed under `id: |-` without indentation), the file is cut at each top-level
`question-id:` line and every piece is read on its own, so one broken answer costs that answer only.
A broken one-line answer, or a block whose lines were not indented, is read as the literal text the
student typed (with a note); anything else scores 0 for that question, with the line and the fix.
YAML anchors and aliases are refused: an answer file never needs them. The parser is bounded (bounded.py):
nesting, long numbers, more than MAX_ANSWERS answers, an answer longer than MAX_ANSWER_CHARS characters or
holding what is not text (a control character, a broken character) cost that answer or file only, with why.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union

import yaml

from ..bounded import BoundedYaml, TooComplex, not_text
from .loader import _NoDuplicateKeys, read_text
from .model import QUESTION_ID_PATTERN, AnswerValue, QuizFormatError

_KEY_LINE = re.compile(r"""^(?P<quote>["']?)(?P<key>[A-Za-z0-9][A-Za-z0-9_.-]*)(?P=quote)[ \t]*:(?=[ \t]|$)(?P<rest>.*)$""")
_BLOCK_INDICATOR = re.compile(r"^\s*[|>][-+]?\d?\s*(#.*)?$")
_ID = re.compile(QUESTION_ID_PATTERN)
MAX_ANSWERS = 200         # top-level keys of one file: a quiz has a few dozen questions
MAX_ANSWER_CHARS = 5000   # characters of one answer: a short answer, a formula or one expression


class _AnswerLoader(_NoDuplicateKeys, BoundedYaml):
    """Bounded loader (bounded.py) without duplicate keys, anchors or aliases."""

    def compose_node(self, parent, index):  # type: ignore[override]
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.composer.ComposerError(None, None, "anchors and aliases (*name) are not allowed here",
                                              event.start_mark)
        return super().compose_node(parent, index)


@dataclass(frozen=True)
class AnswerSheet:
    answers: dict[str, AnswerValue] = field(default_factory=dict)
    problems: dict[str, str] = field(default_factory=dict)   # id -> why its answer could not be used
    notes: dict[str, str] = field(default_factory=dict)      # id -> how a broken answer was read anyway
    messages: tuple[str, ...] = ()                           # about the file, not one answer


def block_example(question_id: str, text: str = "your answer") -> str:
    lines = str(text).splitlines() or [""]
    return f"{question_id}: |-\n" + "\n".join(f"  {line}" for line in lines)


def _fix(question_id: str, text: str = "your answer") -> str:
    return ("Write a short answer as a block, indented by two spaces under its id; then backslashes, colons "
            "and quotes need no escaping:\n" + block_example(question_id, text))


def _yaml_problem(exc: yaml.YAMLError, first_line: int) -> tuple[int, str]:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    line = first_line + (mark.line if mark is not None else 0)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    return line, problem


def _load(text: str) -> Any:
    return yaml.load(text, Loader=_AnswerLoader)


def read_answer_sheet(path: Union[str, Path]) -> AnswerSheet:
    """The answers in one file. Raises QuizFormatError only when the file itself cannot be read."""
    return parse_answer_sheet(read_text(path), str(path))


def parse_answer_sheet(text: str, name: str = "answers") -> AnswerSheet:
    try:
        data = _load(text)
    except (yaml.YAMLError, TooComplex):
        return _piece_by_piece(text, name)
    if data is None:
        return AnswerSheet()
    if not isinstance(data, dict):
        if _KEY_LINE.search(text.split("\n", 1)[0] or "") is None and not any(
                _KEY_LINE.match(line) for line in text.splitlines()):
            raise QuizFormatError(name, [("", "the file must map question ids to answers (id: answer), "
                                              f"got {type(data).__name__}")])
        return _piece_by_piece(text, name)
    return _checked(data, name)


def _checked(data: dict, name: str = "answers") -> AnswerSheet:
    answers, problems, messages = {}, {}, []
    if len(data) > MAX_ANSWERS:
        raise QuizFormatError(name, [("", f"{len(data)} answers, more than the {MAX_ANSWERS} a file may hold")])
    for key, value in data.items():
        if not isinstance(key, str) or not _ID.match(key):
            messages.append(f"{_shown(key)} is not a question id; ignored")
            continue
        if isinstance(value, (list, dict)) or not isinstance(value, (str, int, float, bool, type(None))):
            problems[key] = ("the answer must be text, a number or true/false, not a list or mapping. " + _fix(key))
            continue
        why = _unusable(value)
        if why:
            problems[key] = f"the answer {why}; it scores 0."
            continue
        answers[key] = value
    return AnswerSheet(answers, problems, {}, tuple(messages))


def _unusable(value: AnswerValue) -> str | None:
    """Why an answer's text cannot be graded (too long, not text), else None."""
    if not isinstance(value, str):
        return None
    if len(value) > MAX_ANSWER_CHARS:
        return f"is {len(value)} characters long, more than the {MAX_ANSWER_CHARS} an answer may be"
    why = not_text(value)
    return f"holds {why} (remove it and hand the file in again)" if why else None


def _shown(key: object) -> str:
    """A key that is no question id, as a short quoted text (whatever it holds)."""
    text = repr(key) if isinstance(key, str) else type(key).__name__
    return text if len(text) <= 60 else text[:57] + "..."


def _pieces(lines: list[str]) -> tuple[list[tuple[str, int, list[str]]], list[int]]:
    """(id, first line number, lines) per top-level key; and numbers of stray lines before the first key."""
    pieces: list[tuple[str, int, list[str]]] = []
    stray = []
    for number, line in enumerate(lines, start=1):
        match = _KEY_LINE.match(line)
        if match:
            pieces.append((match["key"], number, [line]))
        elif pieces:
            pieces[-1][2].append(line)
        elif line.strip() and not line.lstrip().startswith("#") and line.strip() != "---":
            stray.append(number)
    return pieces, stray


def _piece_by_piece(text: str, name: str) -> AnswerSheet:
    answers: dict[str, AnswerValue] = {}
    problems: dict[str, str] = {}
    notes: dict[str, str] = {}
    messages = [f"{Path(name).name} is not valid YAML as a whole; each answer was read on its own."]
    pieces, stray = _pieces(text.splitlines())
    if not pieces:
        raise QuizFormatError(name, [("", "no `question-id: answer` lines found")])
    if len(pieces) > MAX_ANSWERS:
        raise QuizFormatError(name, [("", f"{len(pieces)} answers, more than the {MAX_ANSWERS} a file may hold")])
    if stray:
        messages.append(f"line(s) {', '.join(map(str, stray[:5]))} before the first answer were ignored")
    first_line: dict[str, int] = {}
    for key, number, lines in pieces:
        if key in first_line:
            problems[key] = (f"answered twice (lines {first_line[key]} and {number}); neither answer is graded. "
                             "Keep one.")
            answers.pop(key, None)
            notes.pop(key, None)
            continue
        first_line[key] = number
        try:
            data = _load("\n".join(lines))
        except TooComplex as exc:
            problems[key] = f"line {number} ({key}): the answer holds {exc}; it scores 0."
            continue
        except yaml.YAMLError as exc:
            line, problem = _yaml_problem(exc, number)
            literal = _literal(lines)
            if literal is not None and _unusable(literal):
                problems[key] = f"line {line} ({key}): the answer {_unusable(literal)}; it scores 0."
            elif literal is None:
                problems[key] = f"line {line} ({key}): not valid YAML ({problem}); this answer scores 0. " + _fix(key)
            else:
                answers[key] = literal
                notes[key] = (f"line {line} ({key}) was not valid YAML ({problem}); it was read as the text "
                              f"{literal!r}. " + _fix(key, literal))
            continue
        if not isinstance(data, dict) or key not in data:
            problems[key] = f"line {number} ({key}): could not be read. " + _fix(key)
            continue
        sheet = _checked({key: data[key]})  # one key: never more than MAX_ANSWERS
        answers.update(sheet.answers)
        problems.update(sheet.problems)
    return AnswerSheet(answers, problems, notes, tuple(messages))


def _literal(lines: list[str]) -> str | None:
    """What the student plainly meant by a broken answer, when that is beyond doubt; else None."""
    content = [line for line in lines[1:] if line.strip() and not line.lstrip().startswith("#")]
    rest = _KEY_LINE.match(lines[0])["rest"].strip()
    if _BLOCK_INDICATOR.match(rest) or rest in ("|", ">"):
        # `id: |-` followed by lines that were not indented: those lines are the block's text.
        return "\n".join(line.strip() for line in content) or None
    if content or not rest:
        return None
    rest = re.sub(r"^[|>][-+]?\s+", "", rest)  # `id: |- text` on one line
    if len(rest) >= 2 and rest[0] == rest[-1] and rest[0] in "\"'":
        rest = rest[1:-1]
    return rest or None
