"""Words and signs that say true or false, in each language a course may answer in (a quiz's `languages:`).

A check mark or a cross (✓ ✗ ✔ ✘ ✅ ❌) and 1 or 0 say it in any language; a sign no reading accounts for
(unread_sign) keeps an option or a verdict from being scored by the kit.
"""
from __future__ import annotations

import re
from typing import Iterable

LANGUAGES = ("en", "fr", "es", "de", "it", "pt")  # a quiz lists the ones its course answers in (`languages:`)
DEFAULT_LANGUAGES = ("en", "fr", "es", "de")

VERDICT_WORDS: dict[str, dict[bool, tuple[str, ...]]] = {
    "en": {True: ("true", "t", "yes", "y", "yep", "yeah", "yup", "correct", "right"),
           False: ("false", "f", "no", "n", "nope", "nah", "incorrect", "wrong", "untrue")},
    "fr": {True: ("vrai", "v", "oui", "exact", "correct"), False: ("faux", "non", "incorrect", "inexact")},
    "es": {True: ("verdadero", "verdadera", "verdad", "v", "cierto", "cierta", "si", "correcto"),
           False: ("falso", "falsa", "no", "incorrecto")},
    "de": {True: ("wahr", "w", "ja", "richtig", "stimmt"), False: ("falsch", "nein", "unwahr")},
    "it": {True: ("vero", "vera", "v", "si", "sì", "giusto", "corretto", "esatto", "certo"),
           False: ("falso", "falsa", "no", "sbagliato", "errato", "scorretto")},
    "pt": {True: ("verdadeiro", "verdadeira", "verdade", "v", "sim", "certo", "correto", "correta"),
           False: ("falso", "falsa", "não", "errado", "errada", "incorreto", "incorreta")},
}
# Marks and digits that say true or false in any language: a check mark or 1, a cross or 0.
MARKS: dict[str, bool] = {**dict.fromkeys("✓✔☑✅🗸🗹", True), **dict.fromkeys("✗✘☒❌❎🗴🗵🗶🗷🗙", False)}
DIGITS: dict[str, bool] = {"1": True, "0": False}
# A verdict's tokens: words, whole numbers, marks. Digits and marks are read only as a verdict's whole head.
VERDICT_TOKEN = re.compile(r"[^\W\d_]+|\d+|[" + "".join(MARKS) + "]")


def verdict_words(languages: Iterable[str], extra: dict[bool, Iterable[str]] | None = None) -> dict[str, bool]:
    """Word -> verdict for the quiz's languages plus its own words; a word both ways is dropped."""
    words: dict[str, set[bool]] = {}
    for language in languages:
        for value, spelled in VERDICT_WORDS[language].items():
            for word in spelled:
                words.setdefault(plain(word), set()).add(value)
    for value, spelled in (extra or {}).items():
        for word in spelled:
            words.setdefault(plain(word), set()).add(value)
    for mark, value in {**MARKS, **DIGITS}.items():
        words.setdefault(mark, set()).add(value)
    return {word: next(iter(values)) for word, values in words.items() if len(values) == 1}


def unread_sign(text: str, known: Iterable[str] = ()) -> str:
    """A sign in `text` no reading of an option or verdict accounts for: a symbol or emoji ("👎", "☐"), a private
    or unassigned character, that is not a verdict mark and not written in the question's own texts
    (`known`). Maths signs and arrows ("=", "→") are not such signs: reasons and options use them. "" when
    there is none."""
    import unicodedata

    seen = "".join(known)
    for c in text:
        if unicodedata.category(c) in ("So", "Co", "Cn") and c not in MARKS and c not in seen and not (
                0xFE00 <= ord(c) <= 0xFE0F or 0x1F3FB <= ord(c) <= 0x1F3FF):
            return c
    return ""


def plain(text: str) -> str:
    """Case and accents folded: how verdict words are compared."""
    import unicodedata

    decomposed = unicodedata.normalize("NFKD", str(text).casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c)).strip()
