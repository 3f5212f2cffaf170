"""A small, strict reader for the GIFT subset the exporter writes, used to check exports.

Written here instead of using pygiftparser (last release 2017, regex-based, keeps the
backslash escapes in question text and cannot read negative numeric answers).
It honours the GIFT escapes \\~ \\= \\# \\{ \\} \\: \\\\ and \\n.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

SPECIAL = set("~=#{}:\\")


@dataclass
class GiftQuestion:
    title: str
    markup: Optional[str]
    text: str
    kind: str  # multiple_choice | true_false | short_answer | numeric
    choices: list[tuple[str, bool]] = field(default_factory=list)  # (text, correct)
    truth: Optional[bool] = None
    number: Optional[float] = None
    tolerance: Optional[float] = None
    general_feedback: Optional[str] = None


def _chars(source: str) -> list[tuple[str, bool]]:
    """(character, was_escaped) pairs."""
    out, i = [], 0
    while i < len(source):
        if source[i] == "\\" and i + 1 < len(source):
            nxt = source[i + 1]
            if nxt == "n":
                out.append(("\n", True))
            elif nxt in SPECIAL:
                out.append((nxt, True))
            else:
                raise ValueError(f"unknown GIFT escape \\{nxt}")
            i += 2
        else:
            if source[i] == "\\":
                raise ValueError("dangling backslash")
            out.append((source[i], False))
            i += 1
    return out


def _text(chars: list[tuple[str, bool]]) -> str:
    return "".join(c for c, _ in chars).strip()


def _split_unescaped(chars, marker: str) -> list[list[tuple[str, bool]]]:
    parts, current, i = [], [], 0
    while i < len(chars):
        window = chars[i:i + len(marker)]
        if "".join(c for c, _ in window) == marker and not any(e for _, e in window):
            parts.append(current)
            current, i = [], i + len(marker)
        else:
            current.append(chars[i])
            i += 1
    parts.append(current)
    return parts


def _parse_answers(block, question: GiftQuestion) -> None:
    parts = _split_unescaped(block, "####")
    if len(parts) > 2:
        raise ValueError("two general feedbacks")
    body = parts[0]
    if len(parts) == 2:
        question.general_feedback = _text(parts[1])
    raw = _text(body)
    if raw in ("T", "TRUE", "F", "FALSE") and not any(e for _, e in body):
        question.kind, question.truth = "true_false", raw.startswith("T")
        return
    stripped = [(c, e) for c, e in body if not (c.isspace() and not e)] or [("", False)]
    if stripped[0] == ("#", False):
        value, _, tolerance = _text(body)[1:].partition(":")
        question.kind, question.number = "numeric", float(value)
        question.tolerance = float(tolerance) if tolerance else 0.0
        return
    for c, e in body:
        if not e and c in "#{}:" :
            raise ValueError(f"unescaped {c!r} inside an answer block")
    items: list[tuple[str, list]] = []
    for c, e in body:
        if not e and c in "=~":
            items.append((c, []))
        elif items:
            items[-1][1].append((c, e))
        elif not c.isspace():
            raise ValueError("text before the first answer marker")
    question.choices = [(_text(chars), sign == "=") for sign, chars in items]
    question.kind = "multiple_choice" if any(sign == "~" for sign, _ in items) else "short_answer"


def _parse_question(source: str) -> GiftQuestion:
    chars = _chars(source)
    if "".join(c for c, _ in chars[:2]) != "::" or chars[0][1]:
        raise ValueError(f"question without ::title:: -> {source[:40]!r}")
    end = next(i for i in range(2, len(chars) - 1)
               if chars[i] == (":", False) and chars[i + 1] == (":", False))
    title, rest = _text(chars[2:end]), chars[end + 2:]
    markup = None
    if rest and rest[0] == ("[", False):
        close = next(i for i, ch in enumerate(rest) if ch == ("]", False))
        markup, rest = _text(rest[1:close]), rest[close + 1:]
    opens = [i for i, ch in enumerate(rest) if ch == ("{", False)]
    closes = [i for i, ch in enumerate(rest) if ch == ("}", False)]
    if len(opens) != 1 or len(closes) != 1 or closes[0] < opens[0]:
        raise ValueError(f"{title}: expected exactly one {{...}} answer block")
    for c, e in rest[:opens[0]]:
        if not e and c in "~=#:":
            raise ValueError(f"{title}: unescaped {c!r} in question text")
    question = GiftQuestion(title=title, markup=markup, text=_text(rest[:opens[0]]), kind="")
    _parse_answers(rest[opens[0] + 1:closes[0]], question)
    if _text(rest[closes[0] + 1:]):
        raise ValueError(f"{title}: text after the answer block")
    return question


def parse_gift(source: str) -> list[GiftQuestion]:
    """Questions in a GIFT file; blank lines separate questions, // lines are comments."""
    questions, block = [], []
    for line in source.splitlines() + [""]:
        stripped = line.strip()
        if stripped.startswith("//") or stripped.startswith("$CATEGORY:"):
            continue
        if stripped:
            block.append(line)
        elif block:
            questions.append(_parse_question("\n".join(block)))
            block = []
    return questions
