"""Free text earns credit without a person only where its meaning is pinned down.

A free-text question may list `terms`: named key terms, each with the phrases that mean it (in any of
the course's languages). An answer is read word by word into the sequence of key terms it states; every
word must be part of a key term's phrase or a meaning-light filler word ("the", "and", "so", "le", "und"),
else the word stays unknown. An answer earns credit on its own only when nothing is unknown and its key
terms come in exactly the sequence of an accepted answer's. So, by construction:

- a word that turns the meaning (negation "not"/"sans"/"nicht", cause "because", contrast "but",
  hedge "maybe", "only") is never a filler: unless the author made it part of a term ("not normalised",
  "instead of"), the answer goes to a person;
- the same terms in another order or other roles ("compresses all encoder states into one final
  vector", "the gradients grow, so the scores vanish", stage words reshuffled) is another sequence;
- words the author did not foresee (stuffing, misconceptions, asides) are unknown.

Everything else waits for review, with the keyword rubric's suggestion and the canonical reading (key
terms by name, unknown words as written), which groups answers that say the same thing in other words.
Typos are corrected only for long words one edit away from exactly one word of the terms.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from .normalize import plain_text

# Meaning-light words per language: dropping them never changes what an answer states.
FILLERS: dict[str, frozenset[str]] = {
    # Sequence words only where they keep the text's order ("then", "next"); "first" can reorder a list.
    "en": frozenset("the a an it its this that which and so then thus therefore hence to of is are be next"
                    " finally -> =>".split()),
    "fr": frozenset("le la les l un une des de d du et donc puis alors ensuite est sont ce c qui que qu il"
                    " elle".split()),
    "es": frozenset("el la los las un una unos unas de del al y e luego entonces es son que lo".split()),
    "de": frozenset("der die das den dem des ein eine einen einem einer und dann also daher ist sind zu"
                    " es".split()),
}
# "First" opening an answer says that its first step comes first; anywhere else it may reorder ("Y, but first X").
FIRST = frozenset("first firstly premierement primero zuerst erstens".split())
# Words that turn or qualify a statement. Never fillers, never typo-corrected; named in the review hint.
GUARDS = frozenset("""
not no never none nor without cannot can't don't doesn't isn't aren't won't nothing neither only just
because since as due but however although though whereas instead rather unless except
maybe perhaps probably possibly might may guess think unsure likely
ne n non pas jamais sans aucun aucune ni parce car puisque mais cependant plutot seulement peut etre
sin nunca ningun ninguna tampoco porque pero sino quizas quiza tal vez solo
nicht kein keine keinen keiner ohne nie niemals weil da denn aber sondern vielleicht nur
""".split())
for _language, _words in FILLERS.items():  # a filler that could turn a meaning would break the guarantee
    assert not _words & GUARDS, (_language, _words & GUARDS)

_LIGHT = frozenset(",.;:!?()[]{}\"'`-…")
_TOKEN = re.compile(r"(?<![\w.])-(?:inf\b|\d+(?:\.\d+)?(?:e[+-]?\d+)?)|\d+(?:\.\d+)?(?:e[+-]?\d+)?|[^\W\d_]+"
                    r"|->|=>|==|!=|<=|>=|\S")
_CONTRACTIONS = ((re.compile(r"\bcan't\b"), "can not"), (re.compile(r"\bwon't\b"), "will not"),
                 (re.compile(r"n't\b"), " not"))
_BRITISH = re.compile(r"(?<=[^\W\d_]{3})is(e|ed|es|ing|ation|ations)\b")
TYPO_MIN_LENGTH = 6
# A five-letter word is read as a term's word only through the slips that rarely make another word: two
# letters swapped ("scroe" for score) or one left out of a longer word ("befor" for before).
SHORT_TYPO_LENGTH = 5
MAX_WORDS = 120  # far beyond a short answer; a longer text is read by a person, not word by word


def words(text: object) -> list[str]:
    """An answer (or a term's phrase) as the word tokens it is read from."""
    s = plain_text(text)
    s = "".join(c for c in unicodedata.normalize("NFKD", s) if not unicodedata.combining(c))
    s = s.replace("’", "'")
    for pattern, replacement in _CONTRACTIONS:
        s = pattern.sub(replacement, s)
    s = re.sub(r"-\s*inf\b", "-inf", s)
    s = re.sub(r"\b(?:e\.\s?g|i\.\s?e)\b\.?", " ", s)                # e.g. / i.e. say nothing
    s = _numbering_dropped(s)                                   # list numbering: 1) 2. (3), in order only
    s = re.sub(r"(?:^|(?<=[,;:(]))\s*!(?![=!])", " not ", s)         # "softmax, ! mix": a "!" no word ends is "not"
    s = re.sub(r"(?<=[^\W\d_])_+(?=[^\W\d_])", "", s)          # q_i = qi, masked_fill = maskedfill
    s = re.sub(r"\b(un|non|pre|post|de|re|anti)-(?=[^\W\d_])", r"\1", s)  # un-normalised = unnormalised
    s = re.sub(r"(?<=[^\W\d_])/(?=[^\W\d_])", " ", s)           # Q/K/V; other slashes stay symbols
    s = _BRITISH.sub(r"iz\1", s)                                # normalised = normalized
    return [t for t in _TOKEN.findall(s) if t not in _LIGHT]


_NUMBERING = re.compile(r"(?:^|(?<=\s))\(?(\d)[).](?=\s)")


def _numbering_dropped(s: str) -> str:
    """Step numbers say nothing when they count 1, 2, 3, ... in the order written; numbered otherwise ("4)
    project 3) score ...": the steps in reverse) they are the order, so they stay and a person reads them."""
    numbers = [int(m.group(1)) for m in _NUMBERING.finditer(s)]
    return _NUMBERING.sub(" ", s) if numbers == list(range(1, len(numbers) + 1)) else s


@dataclass(frozen=True)
class Term:
    """One phrase of a key term: its words, each a whole word or (ending in *) a prefix."""
    name: str
    parts: tuple[tuple[str, bool], ...]

    def matches(self, tokens: list[str], at: int) -> bool:
        if at + len(self.parts) > len(tokens):
            return False
        return all(tokens[at + k].startswith(w) if prefix else tokens[at + k] == w
                   for k, (w, prefix) in enumerate(self.parts))


def phrase(name: str, text: str, fillers: frozenset[str] = frozenset()) -> Term:
    """A term's phrase, fillers left out as in answers ("all of the states" is "all states")."""
    parts: list[tuple[str, bool]] = []
    for token in (t for t in words(text) if t not in fillers):
        if token == "*" and parts:
            parts[-1] = (parts[-1][0], True)
        else:
            parts.append((token, False))
    return Term(name, tuple(parts))


@dataclass(frozen=True)
class Lexicon:
    terms: tuple[Term, ...]
    fillers: frozenset[str]

    @property
    def vocabulary(self) -> frozenset[str]:
        """Whole words of the terms: what a typo may be corrected to."""
        return frozenset(w for t in self.terms for w, prefix in t.parts if not prefix)

    @property
    def prefixes(self) -> frozenset[str]:
        return frozenset(w for t in self.terms for w, prefix in t.parts if prefix)


@lru_cache(maxsize=256)
def lexicon(terms: tuple[tuple[str, tuple[str, ...]], ...], languages: tuple[str, ...]) -> Lexicon:
    fillers = frozenset().union(*(FILLERS[lang] for lang in languages if lang in FILLERS))
    built = tuple(phrase(name, text, fillers) for name, phrases in terms for text in phrases)
    return Lexicon(tuple(sorted((t for t in built if t.parts), key=lambda t: -len(t.parts))), fillers)


@dataclass(frozen=True)
class MeaningReading:
    terms: tuple[str, ...]                       # key terms stated, in order
    unknown: tuple[str, ...]                     # words that are neither a term nor a filler
    corrected: tuple[tuple[str, str], ...] = ()  # typo -> the word it was read as
    canonical: str = ""                          # terms by name, unknown words as written, in order

    @property
    def guards(self) -> tuple[str, ...]:
        return tuple(w for w in self.unknown if w in GUARDS)


def read_meaning(text: object, lex: Lexicon) -> MeaningReading:
    if len(str(text)) > MAX_WORDS * 20:  # never read a cut text: its tail could turn the meaning
        return MeaningReading((), ("<too long>",), (), "<too long>")
    tokens = [t for t in words(text) if t not in lex.fillers]
    if tokens[:1] and tokens[0] in FIRST:  # "first project, then score, ...": the first step, first
        tokens = tokens[1:]
    if len(tokens) > MAX_WORDS:
        return MeaningReading((), ("<too long>",), (), "<too long>")
    tokens, corrected = _correct_typos(tokens, lex)
    stated: list[str] = []
    unknown: list[str] = []
    canonical: list[str] = []
    at = 0
    while at < len(tokens):
        matched = [t for t in lex.terms if t.matches(tokens, at)]
        if matched:
            longest = [t for t in matched if len(t.parts) == len(matched[0].parts)]
            names = {t.name for t in longest}
            if len(names) == 1:
                name = longest[0].name
                if not (stated and stated[-1] == name and canonical[-1] == f"<{name}>"):
                    stated.append(name)  # "raw, unnormalised" states one term, not two
                    canonical.append(f"<{name}>")
                at += len(longest[0].parts)
                continue
        unknown.append(tokens[at])  # a phrase of two terms at once is as unknown as a stray word
        canonical.append(tokens[at])
        at += 1
    return MeaningReading(tuple(stated), tuple(unknown), tuple(corrected), " ".join(canonical))


# A typo is never read as the word with a negating prefix dropped or added: "unormalized" is not "normalized".
_NEGATING = ("un", "non", "dis")


def _negated(word: str) -> bool:
    return word.startswith(_NEGATING)


def slip(token: str, word: str) -> bool:
    """`token` is `word` with two neighbouring letters swapped, or with one of its letters left out."""
    if len(token) == len(word):
        diff = [i for i, (a, b) in enumerate(zip(token, word)) if a != b]
        return len(diff) == 2 and diff[1] == diff[0] + 1 and token[diff[0]] == word[diff[1]] \
            and token[diff[1]] == word[diff[0]]
    return len(word) == len(token) + 1 and any(word[:i] + word[i + 1:] == token for i in range(len(word)))


def _correct_typos(tokens: list[str], lex: Lexicon) -> tuple[list[str], list[tuple[str, str]]]:
    from rapidfuzz.distance import OSA

    # A guard word is a target only as a word of a term ("insted of" -> "instead of"): the student wrote that
    # guard, and it is then read as written; a guard is never read as another word (it is known).
    vocabulary = [w for w in lex.vocabulary if len(w) >= SHORT_TYPO_LENGTH]
    prefixes = [p for p in lex.prefixes if len(p) >= TYPO_MIN_LENGTH and p not in GUARDS]
    known = lex.vocabulary | lex.fillers | GUARDS
    out, corrected = [], []
    for token in tokens:
        if len(token) >= SHORT_TYPO_LENGTH and token.isalpha() and token not in known \
                and not any(token.startswith(w) for w in lex.prefixes):
            # candidate -> what it reads as: a whole word itself, a prefix-term candidate its prefix
            near = {w: w for w in vocabulary if OSA.distance(token, w, score_cutoff=1) <= 1
                    and (len(token) >= TYPO_MIN_LENGTH and len(w) >= TYPO_MIN_LENGTH or slip(token, w))}
            # a prefix term ("unnormaliz*") read from the token's start: "unormalized" -> "unnormalized"
            near.update({p + token[cut:]: p for p in prefixes for cut in (len(p) - 1, len(p), len(p) + 1)
                         if cut < len(token) and OSA.distance(token[:cut], p, score_cutoff=1) <= 1})
            near = {w: r for w, r in near.items() if _negated(w) == _negated(token)}
            chosen = _one_reading(token, near)
            if chosen is not None:
                corrected.append((token, chosen))
                token = chosen
        out.append(token)
    return out, corrected


def _one_reading(token: str, near: dict[str, str]) -> str | None:
    """The one word a typo stands for: candidates that read alike (one prefix term: "projetcion" is
    "projection" or "projectcion", both "project*") are one; of two forms of one word ("saturate",
    "saturates" for "saturats"), the one that ends as the typo does."""
    if len(set(near.values())) == 1:
        return min(near, key=lambda w: (w not in near.values(), len(w), w))
    words = sorted(near)
    if len(words) == 2 and words[1].startswith(words[0]) and len(words[1]) - len(words[0]) <= 2:
        ending = [w for w in words if w[-1] == token[-1]]
        return ending[0] if len(ending) == 1 else None
    return None


@lru_cache(maxsize=256)
def accepted_structures(answers: tuple[str, ...], lex: Lexicon) -> dict[tuple[str, ...], str]:
    """Key-term sequence -> the accepted answer that states it (answers that do not read fully are left
    out; the quiz loader refuses such a quiz)."""
    structures: dict[tuple[str, ...], str] = {}
    for answer in answers:
        reading = read_meaning(answer, lex)
        if not reading.unknown and reading.terms:
            structures.setdefault(reading.terms, answer)
    return structures


@lru_cache(maxsize=256)
def scored_structures(scored: tuple[tuple[str, float, str], ...], lex: Lexicon) -> dict[tuple[str, ...], tuple[float, str]]:
    """Key-term sequence -> (points, feedback) of the answers whose score the author fixed."""
    found: dict[tuple[str, ...], tuple[float, str]] = {}
    for answer, points, feedback in scored:
        reading = read_meaning(answer, lex)
        if not reading.unknown and reading.terms:
            found.setdefault(reading.terms, (points, feedback))
    return found
