"""Answers that only say the student does not know ("idk", "no idea", "je ne sais pas", "keine Ahnung"):
scored as a blank answer is, never sent to a person.

An answer is one only when all of it is such a phrase, with at most meaning-free words around it ("lol",
"sorry", "honestly") and punctuation: "idk, maybe softmax" states something and is graded as written. The
phrases say nothing in any language of the course, so they are recognised whatever a quiz's languages.
"""
from __future__ import annotations

import re
import unicodedata

_PHRASES_TEXT = """
idk|idc|dunno|i dunno|no idea|no clue|not sure|unsure|i am not sure|im not sure|i have no idea|i have no clue
i dont know|i do not know|dont know|do not know|i dont really know|i really dont know|no answer|n a
i forgot|forgot|no comment
je ne sais pas|je sais pas|jsp|sais pas|aucune idee|pas didee|je ne sais plus|jen sais rien
no se|no lo se|ni idea|no tengo idea|no sabria decir
keine ahnung|weiss nicht|ich weiss nicht|ich weiss es nicht|weiss ich nicht|k a
nao sei|sei la|nao faco ideia|non lo so|non so|boh
"""
PHRASES = frozenset(p.strip() for p in _PHRASES_TEXT.replace("\n", "|").split("|") if p.strip())
# Words that add nothing to "I don't know" (tone, apology, hesitation); never enough on their own.
AROUND = frozenset("lol lmao haha sorry sry tbh honestly really just um uh hmm hm erm ok okay xd sadly yet "
                   "desole perdon leider entschuldigung".split())
_NOT_WORD = re.compile(r"[^a-z0-9]+")


def _shrug_or_face(c: str) -> bool:
    """🤷 with its modifiers (skin tones, gender signs, joiners), or a face (😀-🙄, ☹, 🤔, 🤨, 🧐)."""
    code = ord(c)
    return code in (0x1F937, 0x200D, 0x2640, 0x2642, 0xFE0F, 0x2639, 0x1F914, 0x1F928, 0x1F9D0) or \
        0x1F3FB <= code <= 0x1F3FF or 0x1F600 <= code <= 0x1F644


def _words(text: str) -> list[str]:
    s = unicodedata.normalize("NFKD", text.casefold().replace("ß", "ss"))
    s = "".join(c for c in s if not unicodedata.combining(c)).replace("'", "").replace("’", "")
    return _NOT_WORD.sub(" ", s).split()


def is_non_answer(given: object) -> bool:
    """Whether a (non-blank) answer only says that its writer does not know."""
    if not isinstance(given, str) or len(given) > 80:
        return False
    if given.strip() and not any(c.isalnum() or unicodedata.category(c) in ("Sm", "No") for c in given):
        # only punctuation, a shrug or a face ("?", "...", "🤷", "😕"): nothing a question could accept. Any
        # other sign ("✓", "✗", "👍", "→") may be an answer, so it is read (and goes to a person if it is not)
        return all(c.isspace() or unicodedata.category(c)[0] == "P" or unicodedata.category(c) in ("Cc", "Cf")
                   or _shrug_or_face(c) for c in given)
    words = _words(given)
    while words and words[0] in AROUND:
        words.pop(0)
    while words and words[-1] in AROUND:
        words.pop()
    return bool(words) and " ".join(words) in PHRASES
