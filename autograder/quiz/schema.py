"""JSON Schemas (Draft 2020-12) for quiz files and student answer files.

The schemas catch shape errors; `loader.py` adds the checks a schema cannot express
(unique ids, answer among the options, regexes that compile, ...). Raw jsonschema
messages are rewritten into "question att-03: 'points' must be greater than 0" form
because quiz authors and students are the audience, not schema experts.
"""

from __future__ import annotations

from typing import Any, Iterable

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from ..gradescope.visibility import VISIBILITIES
from .choices import LANGUAGES
from .model import (OPTION_ID_PATTERN, QUESTION_ID_PATTERN, QUESTION_TYPES, QUIZ_ID_PATTERN, SOURCES,
                    WRONG_ANSWER_POLICIES, REASONS_POLICIES)


_TEXT = {"type": "string", "minLength": 1}
# {"not": {}} rather than `false`: jsonschema drops the property name from `false` errors.
_NOT_ALLOWED: dict[str, Any] = {"not": {}}
# Keys that only some question types may carry; the rest get a "not allowed" schema per type.
_TYPE_SPECIFIC_KEYS = ("answer", "options", "accepted", "regex", "rubric", "tolerance", "maths", "code",
                       "auto_rubric", "review_if", "constants", "terms",
                       "scored", "misconceptions", "wrong_answers", "reasons")
_KEYS_BY_TYPE: dict[str, dict[str, Any]] = {
    "multiple_choice": {"answer": {"type": "string"}, "options": True,
                        "misconceptions": {"items": {"properties": {"answer": {"type": "string",
                                                                               "pattern": r"^[a-z]$"}}}},
                        "reasons": True},
    "true_false": {"answer": {"type": "boolean"}, "reasons": True},
    "short_answer": {"accepted": True, "regex": True, "rubric": True, "maths": True, "code": True,
                     "auto_rubric": True, "review_if": True, "terms": True,
                     "scored": True, "misconceptions": {"items": {"properties": {"answer": {"type": "string"}}}},
                     "wrong_answers": True},
    "numeric": {"answer": {"type": "number"}, "tolerance": True, "constants": True,
                "misconceptions": {"items": {"properties": {"answer": {"type": ["number", "string"]}}}},
                "wrong_answers": True},
}
_REQUIRED_BY_TYPE = {
    "multiple_choice": ["answer", "options"],
    "true_false": ["answer"],
    "short_answer": ["accepted"],
    "numeric": ["answer", "tolerance"],
}
_NAME = {"type": "string", "pattern": r"^[A-Za-z][A-Za-z0-9_]*$"}
_ALIASES = {"type": "object", "additionalProperties": _NAME}
_SHAPE = {"type": "array", "minItems": 1, "maxItems": 4, "items": {"type": "integer", "minimum": 1, "maximum": 64}}


def _type_rule(qtype: str) -> dict[str, Any]:
    allowed = _KEYS_BY_TYPE[qtype]
    properties = {key: allowed.get(key, _NOT_ALLOWED) for key in _TYPE_SPECIFIC_KEYS}
    return {
        "if": {"properties": {"type": {"const": qtype}}, "required": ["type"]},
        "then": {"required": _REQUIRED_BY_TYPE[qtype], "properties": properties},
    }


QUIZ_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "urn:autograder:quiz",
    "title": "Knowledge-check quiz",
    "type": "object",
    "required": ["id", "title", "lesson", "questions"],
    "additionalProperties": False,
    "properties": {
        "id": {"type": "string", "pattern": QUIZ_ID_PATTERN},
        "title": _TEXT,
        "lesson": _TEXT,
        "lesson_title": _TEXT,
        "retired": {"type": "array", "items": {"type": "string", "pattern": QUESTION_ID_PATTERN}, "uniqueItems": True},
        "objectives": {"type": "array", "items": _TEXT, "uniqueItems": True},
        "languages": {"type": "array", "minItems": 1, "uniqueItems": True, "items": {"enum": list(LANGUAGES)}},
        "wrong_answers": {"enum": list(WRONG_ANSWER_POLICIES)},
        "reasons": {"enum": list(REASONS_POLICIES)},
        "visibility": {"enum": list(VISIBILITIES)},
        "verdict_words": {"type": "object", "additionalProperties": False, "properties": {
            "true": {"type": "array", "items": _TEXT}, "false": {"type": "array", "items": _TEXT}}},
        "questions": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/question"}},
    },
    "$defs": {
        "question": {
            "type": "object",
            "required": [
                "id", "type", "prompt", "points", "explanation", "objective", "misconception", "source",
            ],
            "additionalProperties": False,
            "properties": {
                "id": {"type": "string", "pattern": QUESTION_ID_PATTERN},
                "type": {"enum": list(QUESTION_TYPES)},
                "source": {"enum": list(SOURCES)},
                "prompt": _TEXT,
                "points": {"type": "number", "exclusiveMinimum": 0},
                "explanation": _TEXT,
                "objective": _TEXT,
                "misconception": {"type": ["string", "null"]},
                "answer": {"type": ["string", "boolean", "number"]},
                "options": {"type": "array", "minItems": 2, "items": {"$ref": "#/$defs/option"}},
                "accepted": {"type": "array", "minItems": 1, "items": _TEXT},
                "regex": {"type": "array", "items": _TEXT},
                "rubric": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/rubric_item"}},
                "tolerance": {"type": "number", "minimum": 0},
                "maths": {"$ref": "#/$defs/maths"},
                "code": {"$ref": "#/$defs/code"},
                "auto_rubric": {"type": "boolean"},
                "review_if": {"type": "array", "items": _TEXT},
                "scored": {"type": "array", "items": {
                    "type": "object", "required": ["answer", "points"], "additionalProperties": False,
                    "properties": {"answer": _TEXT, "points": {"type": "number", "minimum": 0}, "feedback": _TEXT}}},
                "misconceptions": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/misconception"}},
                "wrong_answers": {"enum": list(WRONG_ANSWER_POLICIES)},
                "reasons": {"enum": list(REASONS_POLICIES)},
                "terms": {"type": "object", "minProperties": 1, "propertyNames": {"pattern": r"^[a-z][a-z0-9-]*$"},
                          "additionalProperties": {"type": "array", "minItems": 1, "items": _TEXT}},
                "constants": {"type": "object", "propertyNames": _NAME, "additionalProperties": {"type": "number"}},
            },
            "allOf": [_type_rule(t) for t in QUESTION_TYPES],
        },
        "maths": {
            "type": "object",
            "required": ["answer", "symbols"],
            "additionalProperties": False,
            "properties": {"answer": _TEXT, "symbols": {"type": "array", "minItems": 1, "items": _NAME},
                           "aliases": _ALIASES, "factor": {"enum": ["divisor"]}},
        },
        "code": {
            "type": "object",
            "required": ["answer", "inputs"],
            "additionalProperties": False,
            "properties": {
                "answer": _TEXT,
                "inputs": {"type": "object", "minProperties": 1, "propertyNames": _NAME, "additionalProperties": _SHAPE},
                "constants": {"type": "object", "propertyNames": _NAME, "additionalProperties": {"type": "number"}},
                "functions": {"type": "array", "items": {"enum": ["softmax", "score", "sqrt", "exp"]}},
                "variants": {"type": "array", "items": {"enum": ["dot", "scaled_dot"]}},
                "aliases": _ALIASES,
                "wrong_names": {"type": "array", "items": _NAME},
                "notation": {"enum": ["any", "code"]},
                "masked": {"type": "array", "items": _NAME},
            },
        },
        "misconception": {
            "type": "object",
            "required": ["answer", "says"],
            "additionalProperties": False,
            "properties": {"answer": {"type": ["string", "number"]}, "says": _TEXT,
                           "points": {"type": "number", "minimum": 0}},
        },
        "option": {
            "type": "object",
            "required": ["id", "text"],
            "additionalProperties": False,
            "properties": {"id": {"type": "string", "pattern": OPTION_ID_PATTERN}, "text": _TEXT,
                           # other wordings that mean this option (other languages, "quadratic" for O(n²))
                           "also": {"type": "array", "items": _TEXT, "uniqueItems": True}},
        },
        "rubric_item": {
            "type": "object",
            "required": ["keywords", "points"],
            "additionalProperties": False,
            "properties": {
                "keywords": {"type": "array", "minItems": 1, "items": _TEXT},
                "points": {"type": "number", "exclusiveMinimum": 0},
            },
        },
    },
}

ANSWERS_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "urn:autograder:quiz-answers",
    "title": "Student answers: question id -> answer",
    "type": "object",
    "propertyNames": {"type": "string", "pattern": QUESTION_ID_PATTERN},
    "additionalProperties": {"type": ["string", "number", "boolean", "null"]},
}

Draft202012Validator.check_schema(QUIZ_SCHEMA)
Draft202012Validator.check_schema(ANSWERS_SCHEMA)
_QUIZ_VALIDATOR = Draft202012Validator(QUIZ_SCHEMA)
_ANSWERS_VALIDATOR = Draft202012Validator(ANSWERS_SCHEMA)

_JSON_TYPE_NAMES = {
    str: "text", bool: "true/false", int: "a number", float: "a number",
    list: "a list", dict: "a mapping", type(None): "empty",
}


def _describe(value: Any) -> str:
    kind = _JSON_TYPE_NAMES.get(type(value), type(value).__name__)
    shown = repr(value)
    if len(shown) > 40:
        shown = shown[:37] + "..."
    return f"{shown} ({kind})"


# JSON Schema type names in the words a YAML author uses.
_YAML_TYPE_WORDS = {"object": "a mapping", "array": "a list", "string": "text", "boolean": "true or false",
                    "number": "a number", "null": "empty"}


def _field_name(path: Iterable[Any]) -> str:
    name = ""
    for part in path:
        name += f"[{part}]" if isinstance(part, int) else (f".{part}" if name else str(part))
    return name


def _belongs(keys: list[str], schema: dict) -> str:
    """Where each unknown key is a key: under which of this mapping's own keys (`notation` under `code:`)."""
    where = []
    for key in keys:
        homes = []
        for name, sub in schema.get("properties", {}).items():
            ref = sub.get("$ref", "") if isinstance(sub, dict) else ""
            target = QUIZ_SCHEMA["$defs"].get(ref.rsplit("/", 1)[-1], {}) if ref.startswith("#/$defs/") else sub
            if isinstance(target, dict) and key in target.get("properties", {}):
                homes.append(f"`{name}:`")
        if homes:
            where.append(f"'{key}' belongs under {' or '.join(homes)} ({homes[0][1:-2]}: {{{key}: ...}})")
    return f"; {', '.join(where)}" if where else ""


def _explain(error: ValidationError, field: str, qtype: Any) -> str:
    """One readable sentence for one schema violation."""
    subject = f"'{field}'" if field else "the file"
    kind = error.validator
    if kind == "required":
        missing = error.message.split("'")[1] if "'" in error.message else error.message
        return f"missing required key '{missing}'"
    if kind == "additionalProperties":
        allowed = set(error.schema.get("properties", {}))
        extra = sorted(str(k) for k in error.instance if k not in allowed)
        return f"unknown key(s) {', '.join(repr(k) for k in extra)}" + _belongs(extra, error.schema)
    if kind == "not":  # a key that this question type may not carry
        return f"{subject} is not allowed for a {qtype} question"
    if kind == "type":
        wanted = error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
        words = " or ".join(_YAML_TYPE_WORDS.get(w, w) for w in wanted)
        return f"{subject} must be {words}, got {_describe(error.instance)}"
    if kind in ("enum", "const"):
        choices = error.validator_value if kind == "enum" else [error.validator_value]
        return f"{subject} must be one of {', '.join(map(str, choices))}; got {_describe(error.instance)}"
    if kind == "exclusiveMinimum":
        return f"{subject} must be greater than {error.validator_value}, got {error.instance}"
    if kind == "minimum":
        return f"{subject} must be >= {error.validator_value}, got {error.instance}"
    if kind == "minLength":
        return f"{subject} must not be empty"
    if kind == "minItems":
        return f"{subject} needs at least {error.validator_value} item(s)"
    if kind == "pattern":
        return f"{subject} {error.instance!r} does not match the id pattern {error.validator_value}"
    if kind == "uniqueItems":
        return f"{subject} contains duplicates"
    return f"{subject}: {error.message}"


def _sort_key(error: ValidationError) -> tuple:
    return tuple(str(p) for p in error.absolute_path)


def quiz_schema_problems(data: Any) -> list[tuple[str, str]]:
    """Schema violations of a parsed quiz file as (where, what) pairs."""
    problems: list[tuple[str, str]] = []
    questions = data.get("questions") if isinstance(data, dict) else None
    for error in sorted(_QUIZ_VALIDATOR.iter_errors(data), key=_sort_key):
        path = list(error.absolute_path)
        where, qtype = "", None
        if len(path) >= 2 and path[0] == "questions" and isinstance(path[1], int):
            question = questions[path[1]] if isinstance(questions, list) else None
            qid = question.get("id") if isinstance(question, dict) else None
            qtype = question.get("type") if isinstance(question, dict) else None
            where = f"question {qid}" if isinstance(qid, str) and qid else f"question #{path[1] + 1}"
            path = path[2:]
        problems.append((where, _explain(error, _field_name(path), qtype)))
    return problems


def answers_schema_problems(data: Any) -> list[tuple[str, str]]:
    """Schema violations of a parsed student answer file as (where, what) pairs."""
    if not isinstance(data, dict):
        return [("", f"the file must map question ids to answers (id: answer), got {_describe(data)}")]
    problems: list[tuple[str, str]] = []
    for error in sorted(_ANSWERS_VALIDATOR.iter_errors(data), key=_sort_key):
        path = list(error.absolute_path)
        if path:  # a bad value under a question id
            problems.append((f"question {path[0]}", "the answer must be text, a number or true/false, "
                                                    f"got {_describe(error.instance)}"))
        else:  # propertyNames: the key itself is not a usable question id
            problems.append(("", f"{_describe(error.instance)} is not a valid question id"))
    return problems
