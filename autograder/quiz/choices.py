"""Options and verdicts read the way students write them.

A multiple-choice answer may be the option's letter ("b", "(b)", "B.", "option b"), the letter with its
text ("b) the decoder", "c) O(n²)") or the text alone. A letter whose text belongs to another option is
a contradiction a person settles, and so is an answer that names no option ("the second one", a
paraphrase): only an answer naming two options scores 0 on its own. A true/false answer may be written in any of the quiz's languages
("vrai", "verdadero", "falsch"). A verdict with a reason ("False: the softmax does that") goes to a person with
the verdict's score suggested, because a wrong reason costs marks a teacher would take; so does an answer that
says both, or hedges ("not true", "probably false").
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable

from .normalize import normalize_answer

LANGUAGES = ("en", "fr", "es", "de")
DEFAULT_LANGUAGES = LANGUAGES

VERDICT_WORDS: dict[str, dict[bool, tuple[str, ...]]] = {
    "en": {True: ("true", "t", "yes", "y", "correct", "right"), False: ("false", "f", "no", "n", "incorrect", "wrong")},
    "fr": {True: ("vrai", "v", "oui", "exact", "correct"), False: ("faux", "non", "incorrect", "inexact")},
    "es": {True: ("verdadero", "verdadera", "v", "cierto", "cierta", "si", "correcto"),
           False: ("falso", "falsa", "no", "incorrecto")},
    "de": {True: ("wahr", "w", "ja", "richtig", "stimmt"), False: ("falsch", "nein", "unwahr")},
}
# Words that turn a verdict around or leave it open: such an answer is read by a person.
_OPENERS = frozenset({"not", "never", "maybe", "perhaps", "probably", "partly", "partially", "both", "depends",
                      "pas", "peut", "quizas", "quiza", "tal", "nicht", "vielleicht", "teilweise"})
# Words that may stand beside a verdict without saying anything more ("it's true", "the statement is false").
_BARE = frozenset({"it", "its", "s", "is", "that", "thats", "this", "the", "statement", "answer", "my", "i", "say",
                   "c", "est", "cest", "es", "das", "ist", "la", "respuesta", "reponse", "antwort", "definitely"})
_OPTION_PREFIX = re.compile(r"^(?:option|answer|choice|reponse|réponse|respuesta|opcion|opción|antwort)\s*[:=]?\s*",
                            re.I)
_LETTER = re.compile(r"^[(\[]?([a-z])(?:\s*[)\].:\-–—=]|\s*$)\s*(.*)$", re.S | re.I)
_WORD = re.compile(r"[^\W\d_]+")
_SEVERAL = re.compile(r"^[(\[]?[a-z][)\]]?(?:\s*(?:,|;|/|&|and|or|et|ou|y|o|und|oder)\s*[(\[]?[a-z][)\]]?)+\.?$", re.I)


def verdict_words(languages: Iterable[str], extra: dict[bool, Iterable[str]] | None = None) -> dict[str, bool]:
    """Word -> verdict for the quiz's languages plus its own words; a word both ways is dropped."""
    words: dict[str, set[bool]] = {}
    for language in languages:
        for value, spelled in VERDICT_WORDS[language].items():
            for word in spelled:
                words.setdefault(_plain(word), set()).add(value)
    for value, spelled in (extra or {}).items():
        for word in spelled:
            words.setdefault(_plain(word), set()).add(value)
    return {word: next(iter(values)) for word, values in words.items() if len(values) == 1}


def _plain(text: str) -> str:
    import unicodedata

    decomposed = unicodedata.normalize("NFKD", str(text).casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c)).strip()


@dataclass(frozen=True)
class Reading:
    """What an answer says: a choice (option id, or True/False), or why a person must read it."""
    value: object = None
    unclear: str = ""      # set: a person decides (the answer says something, but not one clear thing)
    unreadable: str = ""   # set: the answer is none of the options / no verdict at all


def read_verdict(given: object, words: dict[str, bool]) -> Reading:
    if isinstance(given, bool):
        return Reading(given)
    if not isinstance(given, str):
        return Reading(unreadable=f"Answer with true or false (got {given!r}).")
    tokens = _WORD.findall(_plain(given))
    said = [words[t] for t in tokens if t in words]
    if not said:
        return Reading(unclear=f"The grader could not read {given.strip()!r} as true or false")
    first = words.get(tokens[0]) if tokens else None
    if len(set(said)) > 1 or first is None or any(t in _OPENERS for t in tokens):
        return Reading(unclear=f"{given.strip()!r} does not say plainly true or false")
    if [t for t in tokens if t not in words and t not in _BARE]:
        # "True, because it uses a causal mask": the reason is free text, and a wrong reason costs marks
        # a teacher would take; its meaning is not pinned down, so a person reads it (the verdict suggested)
        return Reading(first, unclear=f"{given.strip()!r} gives a reason beside its verdict")
    return Reading(first)


def read_choice(given: object, options: dict[str, str]) -> Reading:
    """options: id -> text. The option id an answer names, or why it names none (or several)."""
    if not isinstance(given, str):
        return Reading(unreadable=f"Answer with one option id ({', '.join(options)}).")
    text = _OPTION_PREFIX.sub("", given.strip())
    by_text = {normalize_answer(t): i for i, t in options.items()}
    whole = normalize_answer(text)
    if whole in by_text:  # the text alone ("a weighted sum of values" is not the letter a)
        return Reading(by_text[whole])
    if _SEVERAL.match(text) and all(c.casefold() in options for c in re.findall(r"\b[a-z]\b", text, re.I)
                                    if c.casefold() not in ("y", "o")):
        return Reading(unreadable=f"{given!r} names more than one option: answer with one.")
    match = _LETTER.match(text)
    if match is None or match.group(1).casefold() not in options:  # prose, a paraphrase: a person reads it
        return Reading(unclear=f"The grader could not read {given.strip()!r} as one of the options "
                               f"{', '.join(sorted(options))}")
    letter, rest = match.group(1).casefold(), normalize_answer(match.group(2))
    if not rest or rest == normalize_answer(options[letter]):
        return Reading(letter)
    named = by_text.get(rest)
    if named is not None:
        return Reading(unclear=f"{given.strip()!r} gives the letter ({letter}) with the text of option ({named})")
    if _LETTER.match(match.group(2)) and _LETTER.match(match.group(2)).group(1).casefold() in options:
        return Reading(unreadable=f"{given!r} names more than one option: answer with one.")
    if rest.startswith(normalize_answer(options[letter])):
        return Reading(letter)  # "c) O(n²) since every pair is scored": the choice, then a reason
    return Reading(unclear=f"{given.strip()!r} gives the letter ({letter}) with other words than its text")
