"""Bounded parsers for what students hand in, and what platforms write about them.

Everything here runs on the trusted side before anything recursive or printing sees the data, so one
student's file can cost that student a row's reason, never the class its gradebook:
- nesting: YAML and JSON deeper than MAX_DEPTH levels are refused before they are built (Python's own
  parsers recurse, and stop the process at about a thousand levels);
- numbers: an integer written with more than MAX_NUMBER_CHARS characters is refused, or kept as the text
  it is (Python refuses to print an integer of more than 4300 digits);
- text: lone surrogates (never text, and not encodable in UTF-8), NUL and other control characters apart
  from tab, newline and carriage return are "not text" (`not_text` names the first one);
- sizes are stated by each reader (answer files, notebooks, zips).
The limits are stated in docs/submissions.md.
"""
from __future__ import annotations

import re
import unicodedata

import yaml

MAX_DEPTH = 32             # YAML / JSON nesting; an answer file needs 1, Gradescope's metadata 4, notebooks about 6
MAX_NUMBER_CHARS = 100     # characters of one integer in YAML or JSON
MAX_NAME_CHARS = 200       # a name, e-mail or id a platform reports about a student

_NOT_TEXT = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")


class TooComplex(ValueError):
    """Data beyond a stated bound; str() says which, in words for the student; `line` where (YAML, from 1)."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


def not_text(text: str) -> str | None:
    """Why `text` is not plain text (its first control character or lone surrogate, named), else None."""
    found = _NOT_TEXT.search(text)
    if found is None:
        return None
    char = found.group()
    if "\ud800" <= char <= "\udfff":
        return f"a broken character (a lone UTF-16 surrogate, U+{ord(char):04X}) at character {found.start() + 1}"
    return f"a control character (U+{ord(char):04X}) at character {found.start() + 1}"


def plain_name(value: object) -> str:
    """A name, e-mail or id from a platform as one line of text: control characters become spaces, broken
    characters U+FFFD, and it is cut at MAX_NAME_CHARS."""
    text = value if isinstance(value, str) else "" if value is None else _short(value)
    text = re.sub("[\ud800-\udfff]", "\ufffd", text[:MAX_NAME_CHARS * 2])
    text = "".join(" " if unicodedata.category(c) == "Cc" else c for c in text)
    return " ".join(text.split())[:MAX_NAME_CHARS]


def _short(value: object) -> str:
    try:
        return str(value)
    except ValueError:  # an integer too long to print
        return ""


class BoundedYaml(yaml.SafeLoader):
    """PyYAML's safe loader (in Python) with nesting, integer length and, when `long_numbers` is "refuse",
    integers refused; "text" keeps a long integer as the characters written."""
    long_numbers = "refuse"

    def __init__(self, stream) -> None:
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent, index):  # type: ignore[override]
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                event = self.peek_event()
                raise TooComplex(f"lists or mappings nested more than {MAX_DEPTH} levels deep",
                                 event.start_mark.line + 1)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_yaml_int(self, node):
        if len(node.value) > MAX_NUMBER_CHARS:
            if self.long_numbers == "text":
                return node.value
            raise TooComplex(f"a number of {len(node.value)} characters (at most {MAX_NUMBER_CHARS} are read)",
                             node.start_mark.line + 1)
        return super().construct_yaml_int(node)


BoundedYaml.add_constructor("tag:yaml.org,2002:int", BoundedYaml.construct_yaml_int)


class BoundedYamlText(BoundedYaml):
    """BoundedYaml keeping a long integer as its text (an id a platform wrote)."""
    long_numbers = "text"



_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)  # unrolled: runs of plain characters at once


def json_bounds(text: str, depth: int = MAX_DEPTH) -> str | None:
    """Why JSON `text` is beyond the bounds (nesting, a long number), checked without building it; else None."""
    outside = _JSON_STRING.sub('""', text)  # strings out: their brackets and digits are text
    level = deepest = 0
    for bracket in re.findall(r"[\[\]{}]", outside):
        level += 1 if bracket in "[{" else -1
        deepest = max(deepest, level)
        if deepest > depth:
            return f"lists or objects nested more than {depth} levels deep"
    number = re.search(r"[0-9][0-9.eE+-]{%d,}" % MAX_NUMBER_CHARS, outside)
    if number:
        return f"a number of {len(number.group())} characters (at most {MAX_NUMBER_CHARS} are read)"
    return None
