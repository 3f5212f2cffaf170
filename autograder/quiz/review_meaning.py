"""Groups of review answers that mean the same, not only read the same.

Each answer gets a canonical form under changes that keep its meaning: case, punctuation, spacing, stop
words, British/American spelling, plurals, a few synonyms, number words ("two" = "2" = "2.0"), the order of
the items of a list ("keys, queries and values"), contractions ("isn't" = "is not" = "not"), hedges ("I think",
"probably": grading reads a hedged answer as the bare one), typos of role and sequence words. Answers with
one canonical form share a group; then near-duplicates (typos, one word more or less) join a group, compared
word by word IN ORDER, so swapped roles ("query ... key" vs "key ... query") or swapped cause and effect do
not. Two answers never share a group when they differ in a negation, a number, before/after or an order
word, or in the order of the kit's role words (query, key, value, encoder, decoder, ...; the letters Q, K, V
in every notation, q_i, k_j, QK^T, are the roles they name). For a free-text
question with key terms, answers are also compared as grading read them (the question's terms, in every
language it lists, as one word each, in order), under the same rules.
"""
from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from .grade import review_text

STOP = frozenset("""a an the of to is are was were be been being it its this that these those there their
they them we our you your i my me which who whom whose what as at by for from in into on onto with
then also just very really basically simply each every one's some any do does did has have had will would
shall should can could may might must than like about well um uh ok okay yes""".split()) - {"one"}
NEGATION = frozenset("not no never without none neither nor cannot nothing nobody".split())
ORDER = frozenset("before after first last then next earlier later above below over under instead".split())
ROLES = frozenset("query key value encoder decoder row column source target input output softmax mask "
                  "score weight gradient".split())
CAUSE = frozenset("because cause causes caused so therefore thus hence since lead leads make makes".split())
# A hedge says how sure the student is, not what they claim: grading reads "i think X" / "X, maybe?" as X
# (grade.py), so a group does too. "not sure" keeps its "not" (a negation) and stays apart.
HEDGES = frozenset("think guess believe probably maybe perhaps".split())
# Long sequence and cause words a typo may stand for ("insted", "befor", "becuase"): a missed one would keep
# the same claim apart, a wrong one cannot join two claims, since both answers must then share the word.
# Words with a real neighbour one edit away ("neither"/"either", "nothing"/"noting") are left out.
GUARD_TYPOS = ("instead", "because", "before", "therefore", "without", "earlier", "infinity")
NUMBER_WORDS = {w: str(i) for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty".split())}
NUMBER_WORDS.update({"thirty": "30", "forty": "40", "fifty": "50", "sixty": "60", "seventy": "70",
                     "eighty": "80", "ninety": "90", "hundred": "100", "half": "0.5", "quarter": "0.25",
                     "twice": "2", "double": "2", "single": "1"})
SYNONYMS = {  # meaning-preserving in the lessons' sense; each maps to one representative
    "big": "large", "huge": "large", "bigger": "large", "larger": "large", "greater": "large",
    "small": "small", "tiny": "small", "smaller": "small", "increase": "grow", "increases": "grow",
    "grows": "grow", "growing": "grow", "rise": "grow", "rises": "grow", "explode": "grow", "explodes": "grow",
    "decrease": "shrink", "decreases": "shrink", "shrinks": "shrink", "vanish": "shrink", "vanishes": "shrink",
    "keys": "key", "queries": "query", "values": "value", "similarity": "similarity",
    "compatibility": "similarity", "affinity": "similarity", "relevance": "similarity", "match": "similarity",
    "probabilities": "probability", "distribution": "probability", "uses": "use", "using": "use",
    "look": "attend", "looks": "attend", "attends": "attend", "attending": "attend", "sees": "attend",
    "see": "attend", "focus": "attend", "focuses": "attend", "every": "all", "whole": "all", "entire": "all",
    "vectors": "vector", "states": "state", "tokens": "token", "positions": "position", "word": "token",
    "words": "token", "dimension": "dim", "dimensions": "dim", "dimensionality": "dim", "dims": "dim",
    "scaling": "scale", "scaled": "scale", "scales": "scale", "divide": "divide", "divided": "divide",
    "divides": "divide", "dividing": "divide", "normalize": "normalise", "normalized": "normalise",
    "normalizes": "normalise", "normalised": "normalise", "normalises": "normalise",
    "sum": "sum", "sums": "sum", "summed": "sum", "softmaxes": "softmax", "soft-max": "softmax",
    "masked": "mask", "masking": "mask", "masks": "mask", "weights": "weight", "weighted": "weight",
    "scores": "score", "scoring": "score", "gradients": "gradient", "grads": "gradient", "grad": "gradient",
    "infinity": "inf", "rows": "row", "columns": "column", "cols": "column", "col": "column", "dont": "not", "isnt": "not",
}
_MODULE = re.compile(r"\b(?:torch\.nn\.functional|nn\.functional|torch|math|np|numpy|f)\.(?=[a-z_]+\s*\()")
_CONTRACTIONS = re.compile(r"(\w+)n['’]t\b")
_UN = re.compile(r"\b(?:un|non-?)(normali[sz]ed|scaled|masked|bounded|weighted|changed|ordered|related|"
                 r"trained|stable|likely)\b")
_TOKEN = re.compile(r"-?\d+(?:[.,]\d+)?|[a-z_\u00c0-\u024f]+(?:'[a-z]+)?|[*/^@+\-=<>()√∞]")
_HEDGE = re.compile(r"\b(?:i\s+)?(?:think|guess|believe|probably|maybe|perhaps)\b|\?")
_MINUS_INFINITY = re.compile(r"\b(?:negative|minus)\s+(?=inf(?:inity)?\b)")
_LIST_SPLIT = re.compile(r"\s*(?:,|;|\band\b|\bor\b|&)\s*")


def _token(word: str) -> str:
    if re.fullmatch(r"-?\d+(?:[.,]\d+)?", word):
        number = float(word.replace(",", "."))
        return f"{number:g}"
    word = NUMBER_WORDS.get(word, word)
    word = SYNONYMS.get(word, word)
    if len(word) >= 5 and word not in ROLES:
        word = _role_typo(word)
    if len(word) >= 5 and word not in NEGATION | ORDER | CAUSE:
        word = SYNONYMS.get(_guard_typo(word), _guard_typo(word))
    if re.fullmatch(r"[a-z]{4,}", word) and word not in SYNONYMS.values():
        word = re.sub(r"i[sz](e|es|ed|ing|ation)$", r"is\1", word)  # -ize / -ise
        if word.endswith("ies"):
            word = word[:-3] + "y"
        elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
            word = word[:-1]
    return word


@lru_cache(maxsize=65536)
def _role_typo(word: str) -> str:
    """A role word with a typo ("sofmax", "gradeint") is that role word: roles are compared in order."""
    from rapidfuzz import fuzz, process

    found = process.extractOne(word, ROLES, scorer=fuzz.ratio, score_cutoff=85)
    return found[0] if found else word


@lru_cache(maxsize=65536)
def _guard_typo(word: str) -> str:
    from rapidfuzz.distance import OSA

    near = [g for g in GUARD_TYPOS if OSA.distance(word, g, score_cutoff=1) <= 1]
    return near[0] if len(near) == 1 else word


def _words(text: str) -> list[str]:
    text = unicodedata.normalize("NFKC", review_text(text)).replace("’", "'")
    text = text.translate(str.maketrans({"−": "-", "–": "-", "—": "-", "×": "*", "·": "*", "∞": " inf "}))
    text = _CONTRACTIONS.sub(lambda m: "can not" if m.group(1) == "ca" else f"{m.group(1)} not", text)
    text = _MODULE.sub("", text)  # torch.softmax = F.softmax = softmax; math.sqrt = torch.sqrt = sqrt
    text = re.sub(r"'(?:s|re|ll|ve|m|d)\b", " ", text)  # it's = it is: the verb is a stop word either way
    text = _MINUS_INFINITY.sub("-", text)  # "negative infinity" = "minus inf" = "-inf" (the minus is a signal)
    text = _UN.sub(lambda m: f"not {m.group(1)}", text)
    return [_token(w) for w in _TOKEN.findall(text)]


@lru_cache(maxsize=65536)
def canonical(text: str) -> tuple[str, ...]:
    """The answer's meaning-preserving canonical words. An enumeration of a few words each ("keys, queries
    and values") is sorted; a sequence (commas only, arrows, "then", numbered steps) keeps its order, since
    stages in the wrong order are a wrong answer."""
    flat = " ".join(_HEDGE.sub(" ", review_text(text)).split()).strip(" ,;:")
    parts = [p for p in _LIST_SPLIT.split(flat) if p and p.strip()]
    # an item naming two roles is a clause of its own ("values come from the encoder"): its order is the meaning
    enumeration = re.search(r"\b(?:and|or)\b|&", flat) and not re.search(r"→|->|\bthen\b|\d\)|\bfirst\b", flat)
    if enumeration and len(parts) >= 2 and all(
            re.fullmatch(r"[^\W\d]+(?:[\s'/-][^\W\d]+)*\.?", p)  # words only: code and formulas keep their order
            and len([w for w in _words(p) if w not in STOP and w not in HEDGES]) <= 3
            and sum(len(roles_in(w)) for w in _words(p)) <= 1 for p in parts):
        items = sorted(" ".join(w for w in _words(p) if w not in STOP and w not in HEDGES) for p in parts)
        return tuple(w for item in items if item for w in item.split() + [","])[:-1] or ("",)
    return tuple(w for w in _words(flat) if w not in STOP and w not in HEDGES and w != ",")


# The lessons' letters for the roles, as canonical words: q, k_j, q_ (from q_{i}), qi (qᵢ), kt (Kᵀ); and
# letters written together ("QK^T": qk, "QKᵀ": qkt), each a role in order. d_k, w_q and the like are not roles.
LETTER_ROLES = {"q": "query", "k": "key", "v": "value"}
_LETTER_ROLE = re.compile(r"([qkv])(?:_[a-z0-9]{0,3}|[ijt])?")
_LETTERS_TOGETHER = re.compile(r"([qkv]{2,3})t?")
SYMBOLS = frozenset("*/^@+-=<>()√∞")


def roles_in(word: str) -> tuple[str, ...]:
    """The roles a canonical word names, in order: a role word, or the letters Q, K, V in any of the
    notations students write (q_i, k_j, q_{i}, qᵢ, QK^T)."""
    if word in ROLES:
        return (word,)
    if _LETTER_ROLE.fullmatch(word):
        return (LETTER_ROLES[word[0]],)
    together = _LETTERS_TOGETHER.fullmatch(word)
    if together and len(set(together.group(1))) == len(together.group(1)):
        return tuple(LETTER_ROLES[c] for c in together.group(1))
    return ()


def signals(words: tuple[str, ...]) -> tuple:
    """What two answers of one group must share exactly: negations (counted), numbers, order and cause
    words, and the order in which the roles appear, however they are named ("K" and "key j" are one role)."""
    negations = sum(w in NEGATION for w in words)
    numbers = tuple(sorted(w for w in words if re.fullmatch(r"-?\d+(?:\.\d+)?(?:e-?\d+)?", w)))
    ordered = tuple(x for w in words for x in (
        roles_in(w) or ((w,) if w in ORDER or w in CAUSE or w in SYMBOLS else ())))
    return negations, numbers, ordered


FILLERS = frozenset({"really", "basically", "just", "actually", "simply", "very", "quite", "essentially",
                     "literally", "indeed", "obviously", "clearly"})


def near(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Same signals, and word by word in order only typos and at most one filler word (an intensifier such as
    "really" or "basically") more or less per six words; in a formula or code, typos only. Any other word
    more or less may be a claim of its own ("it is faster: the decoder looks at all states"), and a group's
    decision is applied to every answer in it, so such answers stay apart."""
    from rapidfuzz import fuzz
    from rapidfuzz.distance import Levenshtein

    if a == b:
        return True
    if signals(a) != signals(b):
        return False
    extra = 0
    formula = any(w in "*/^@+-=<>()√∞" for w in a + b)
    for tag, i1, i2, j1, j2 in Levenshtein.opcodes(a, b):
        if tag == "replace":
            if i2 - i1 != j2 - j1:
                return False
            for x, y in zip(a[i1:i2], b[j1:j2]):
                if min(len(x), len(y)) < 4 or fuzz.ratio(x, y) < 75:
                    return False
        elif tag in ("insert", "delete"):
            words = a[i1:i2] + b[j1:j2]
            if formula or any(w not in FILLERS for w in words):
                return False
            extra += len(words)
    return extra <= max(len(a), len(b)) // 6


def meaning_groups(texts: list[str], weight: dict[str, int] | None = None) -> list[list[str]]:
    """Groups of answers (as given), largest weight first; each member is near every other member."""
    weight = weight or {}
    by_form: dict[tuple, list[str]] = {}
    for text in sorted(texts, key=lambda t: (-weight.get(t, 1), t)):
        by_form.setdefault(canonical(text), []).append(text)
    forms = sorted(by_form, key=lambda f: (-sum(weight.get(t, 1) for t in by_form[f]), f))
    groups: list[list[tuple]] = []
    for form in forms:
        for group in groups:
            if all(near(form, other) for other in group):
                group.append(form)
                break
        else:
            groups.append([form])
    merged = [[t for form in group for t in by_form[form]] for group in groups]
    return sorted(merged, key=lambda g: -sum(weight.get(t, 1) for t in g))


_TERM = re.compile(r"(<[^<>\s]+>)")


def reading_form(reading: str) -> tuple[str, ...]:
    """Grading's reading of a free-text answer (meaning.py: key terms as <name>, other words as written) in
    canonical() words: the question's own synonyms (its terms, in every language it lists) first, then
    stop words, hedges, spelling and plurals of the words no term covers. The order of the terms is kept."""
    form: list[str] = []
    for chunk in _TERM.split(reading):
        if _TERM.fullmatch(chunk):
            form.append(chunk)
        else:
            # a bare "s" is what the reading keeps of "it's": a stop word, as in canonical()
            form += [w for w in _words(chunk) if w not in STOP and w not in HEDGES and w not in (",", "s")]
    return tuple(form)


def merge_same_meaning(groups: list[list[str]], meaning: dict[str, str | None],
                       weight: dict[str, int] | None = None, readings: bool = False) -> list[list[str]]:
    """Groups joined where two of their answers have one meaning as grading read it (meaning.py's canonical
    reading, the same listed misconception, the same simplified formula, the same computed tensors): such
    answers say the same thing however they are worded. `readings`: the meanings are free-text readings,
    compared as reading_form()s. Largest weight first."""
    weight = weight or {}
    if readings:
        meaning = {t: m if not m or m.startswith(("misconception:", "§")) else " ".join(reading_form(m)) or None
                   for t, m in meaning.items()}
    owner: dict[str, int] = {}
    parent = list(range(len(groups)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for index, group in enumerate(groups):
        for text in group:
            key = meaning.get(text)
            if key:
                first = owner.setdefault(key, index)
                parent[root(index)] = root(first)
    merged: dict[int, list[str]] = {}
    for index, group in enumerate(groups):
        merged.setdefault(root(index), []).extend(group)
    return sorted(merged.values(), key=lambda g: -sum(weight.get(t, 1) for t in g))


def join_near_readings(groups: list[list[str]], meaning: dict[str, str | None],
                       weight: dict[str, int] | None = None) -> list[list[str]]:
    """Groups joined where every answer of both reads near every other (near(): same signals, only typos
    and fillers apart, word by word in order) once the question's terms are read as terms. An answer with no
    reading keeps its group as it is."""
    weight = weight or {}
    forms = {t: reading_form(m) for t, m in meaning.items() if m and not m.startswith(("misconception:", "§"))}
    joined: list[list[str]] = []
    for group in groups:
        if all(t in forms for t in group):
            home = next((j for j in joined if all(t in forms for t in j) and all(
                _near_terms(forms[a], forms[b]) for a in group for b in j)), None)
            if home is not None:
                home.extend(group)
                continue
        joined.append(list(group))
    return sorted(joined, key=lambda g: -sum(weight.get(t, 1) for t in g))


def _near_terms(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """near(), with each key term one word that only the same term equals, in the same place."""
    if [w for w in a if _TERM.fullmatch(w)] != [w for w in b if _TERM.fullmatch(w)]:
        return False
    return near(tuple("§" + w[1:-1] if _TERM.fullmatch(w) else w for w in a),
                tuple("§" + w[1:-1] if _TERM.fullmatch(w) else w for w in b))
