"""Options and verdicts read the way students write them.

A multiple-choice answer may be the option's letter ("b", "(b)", "B.", "b,", "option b"), the letter with its
text ("b) the decoder", "c) O(n²)"), the text alone (articles aside: "a weighted sum of the values"), or its
place ("the second one"). An answer that names several options ("a or c") is one the kit scores 0 (one option
is asked for); anything else that is not exactly one option is read by a person, never scored 0 by the kit: a
letter whose text belongs to another option, an answer that names no option (a paraphrase), a sign beside it
the reader does not know ("b ✗" may mean "not b"). A true/false answer may be written in any
of the quiz's languages ("vrai", "verdadero", "falsch", "vero", "verdadeiro"), as a mark or a digit ("✓", "✗",
"1", "0"), with one typo in a long word ("verdadeiro"), hedged ("probably false?", "true I think"), negated
("not true", "it's not the case", "no es verdad", "nicht wahr", "non è vero") or followed by a reason
("False: the softmax does that").
Words after the choice or verdict come back as its `reason`: grading decides whether it turns anything
(reasons.py). An answer that says both ways, or opens the verdict ("partly", "depends", "not always"), goes
to a person.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, replace
from typing import Iterable

from .meaning import slip
from .languages import (DEFAULT_LANGUAGES, LANGUAGES, MARKS, VERDICT_TOKEN as _VTOKEN,  # noqa: F401
                        VERDICT_WORDS, plain as _plain, unread_sign, verdict_words)
from .normalize import normalize_answer

# Words that leave a verdict open: such an answer is read by a person.
_OPENERS = frozenset({"never", "partly", "partially", "both", "depends", "always", "sometimes", "usually",
                      "mostly", "quite", "half", "teilweise", "parfois", "depende", "kommt"})
# One word that turns the verdict after it ("not true", "pas vrai", "nicht wahr", "isn't true").
_NEGATORS = frozenset({"not", "pas", "nicht"})
# A verdict word of its own that turns the verdict after it: Italian "non è vero", Portuguese "não é verdade"
_NEGATING_NO = frozenset({"non", "nao"})
# Words that may stand beside a verdict without saying anything more ("it's true", "the statement is false").
_BARE = frozenset({"it", "its", "s", "is", "that", "thats", "this", "the", "statement", "answer", "my", "i", "say",
                   "c", "est", "cest", "es", "das", "ist", "la", "respuesta", "reponse", "antwort", "definitely",
                   "ce", "n", "ne", "lo", "eso", "esto", "so", "sure", "totally", "completely", "absolutely",
                   "e", "questo", "cio", "risposta", "isso", "isto", "resposta", "a"})
# Said beside a verdict, these only say how sure the student is: "probably false?", "true, I think".
_HEDGE_HEAD = re.compile(r"^(?:(?:hmm+|um+|uh+|well|ok(?:ay)?)\s*[,.]?\s*)?"
                         r"(?:i\s+(?:think|guess|believe)(?:\s+so)?|i(?:\s+would|\s*['’]\s*d|\s+d)\s+say|hmm+|um+|uh+|well|"
                         r"probably|maybe|perhaps|je\s+(?:pense|crois)"
                         r"(?:\s+que)?|peut\s*-?\s*etre|probablement|creo(?:\s+que)?|quizas?|probablemente|"
                         r"ich\s+glaube|vielleicht|wahrscheinlich|penso(?:\s+che)?|credo(?:\s+che)?|forse|"
                         r"probabilmente|acho(?:\s+que)?|talvez|provavelmente)\s*[,:]?\s+")
_HEDGE_TAIL = re.compile(r"(?:[\s,;:.!?-]*\b(?:i\s+think(?:\s+so)?|i\s+guess|i\s+believe|probably|maybe|not\s+(?:100\s*%\s*)?"
                         r"sure|je\s+pense|je\s+crois|creo|glaube\s+ich|oder|penso|credo|forse|acho))?[\s?.!]*$")
# Where a verdict ends and its reason starts: punctuation, a spaced dash, or a word that gives a cause.
_REASON_START = re.compile(r"\s*(?:[,;:!?.()]|\s[-–—]+\s|[-–—]+\s)\s*|\s+(?=(?:because|since|as|car|parce|porque|"
                           r"puesto|weil|denn)\b)")
_NOT_THE_CASE = re.compile(r"^(?:(?:it|that|this)\s*(?:s|is)\s+)?(not\s+)?the\s+case$")
_OPTION_PREFIX = re.compile(r"^(?:(?:the|la|le|el|die)\s+)?(?:option|answer|choice|reponse|réponse|respuesta|opcion|"
                            r"opción|antwort)\s*[:=]?\s*", re.I)
# an opening bracket must close right after the letter: "(b)" names b, "(B, T_q, T_k)" is a shape, not an option
_LETTER = re.compile(r"^(?:[(\[](?=[a-z]\s*[)\]]))?([a-z])(?:\s*[)\].:,;\-–—=]|\s*$)\s*(.*)$", re.S | re.I)
_WORD = re.compile(r"[^\W\d_]+")
_SEVERAL = re.compile(r"^[(\[]?[a-z][)\]]?(?:\s*(?:,|;|/|&|and|or|et|ou|y|o|und|oder)\s*[(\[]?[a-z][)\]]?)+\.?$", re.I)
_PLACES = {1: ("first", "1st", "premiere", "premier", "primera", "primero", "erste"),
           2: ("second", "2nd", "deuxieme", "seconde", "segunda", "segundo", "zweite"),
           3: ("third", "3rd", "troisieme", "tercera", "tercero", "dritte"),
           4: ("fourth", "4th", "quatrieme", "cuarta", "cuarto", "vierte")}
_PLACE = re.compile(r"^(?:the|la|le|el|die|der|das)?\s*([a-z0-9]+)\s*(?:one|option|answer|choice|reponse|opcion|"
                    r"respuesta|antwort)?$")
_ARTICLES = frozenset("the a an le la les l un une el los las una der die das ein eine".split())


@dataclass(frozen=True)
class Reading:
    """What an answer says: a choice (option id, or True/False), or why a person must read it. `reason`: the
    words written after the choice, for grading to weigh (empty when there are none)."""
    value: object = None
    unclear: str = ""      # set: a person decides (not one clear choice: none, several, or a sign not read)
    several: tuple = ()    # the options an answer names when it names several and nothing else ("a or c")
    reason: str = ""
    restated: bool = False  # the answer writes the chosen option's whole text, not the letter alone


def _one_typo(word: str, known: Iterable[str]) -> list[str]:
    """Known words one edit (insertion, deletion, substitution) away from `word`."""
    def near(a: str, b: str) -> bool:
        if abs(len(a) - len(b)) > 1:
            return False
        if len(a) == len(b):
            return sum(x != y for x, y in zip(a, b)) == 1
        short, long_ = sorted((a, b), key=len)
        return any(long_[:i] + long_[i + 1:] == short for i in range(len(long_)))
    found = [k for k in known if len(k) >= 6 and near(word, k)]
    # a short verdict word ("ture", "fasle", "tru", "truee"): two letters swapped, one left out or doubled, one
    # added; never one changed, which makes other words ("tree" of "true"), nor a word that is one ("war")
    if not found and len(word) >= 3 and word not in _REAL_NEIGHBOURS:
        found = [k for k in known if 4 <= len(k) < 6 and _shuffled(word, k)]
    return found


# Words one such slip from a verdict word that are words of their own ("war": German "was"; "rue": a street)
_REAL_NEIGHBOURS = frozenset("war rue tue fase fake vrais wahl wahn ware were".split())


def _shuffled(word: str, known: str) -> bool:
    """One edit apart, but not by a changed letter: swapped neighbours, a letter left out (meaning.slip), or
    one added (the same, the other way round)."""
    return word != known and (slip(word, known) or slip(known, word))


def _head_verdict(head: str, words: dict[str, bool]) -> tuple[bool | None, str]:
    """The verdict a few words state ("it's not true", "no es verdad", "falsch"), or None and why not."""
    unread = re.sub(r"[\s'’-]", "", _VTOKEN.sub("", head))
    if unread:  # "true 👎", "false 2", "vero ×": a sign beside the verdict may take it back
        return None, f"{unread[:10]!r} beside the verdict"
    tokens = _VTOKEN.findall(head)
    if not tokens:
        return None, "no single verdict"
    if _NOT_THE_CASE.match(" ".join(tokens)):
        return _NOT_THE_CASE.match(" ".join(tokens)).group(1) is None, ""
    if tokens[:2] == ["no", "es"] and len(tokens) > 2:  # Spanish "no es verdad": the "no" negates
        tokens = ["not"] + tokens[1:]
    if tokens[0] in _NEGATING_NO and any(t in words and t not in _NEGATING_NO | {"no"} for t in tokens[1:]):
        tokens = ["not"] + tokens[1:]  # "non è vero", "não é verdade"
    if tokens in (["stimmt", "nicht"], ["das", "stimmt", "nicht"]):  # German puts "nicht" after the verb
        tokens = ["nicht", "stimmt"]
    tokens = ["nicht" if t in ("keineswegs", "keinesfalls") else t for t in tokens]  # "keineswegs wahr"
    values, negators = [], 0
    for token in tokens:
        if token in _NEGATORS:
            if values:  # "true not" says nothing plain
                return None, "a negation after the verdict"
            negators += 1
        elif token in words and (len(token) > 1 or len(tokens) == 1 or not token.isalpha()):
            # "n" alone is "no"; in "n'est", French. A mark or a digit is read wherever it stands
            values.append(words[token])
        elif token in _OPENERS:
            return None, "it leaves the verdict open"
        elif token not in _BARE:
            near = {words[k] for k in _one_typo(token, words)}
            if len(near) != 1:
                return None, "a word that is not a verdict"
            values.append(near.pop())
    if not values or len(set(values)) > 1 or negators > 1:
        return None, "no single verdict"
    return values[0] != bool(negators), ""


def read_verdict(given: object, words: dict[str, bool], statement: str = "") -> Reading:
    """`statement`: the claim the question asks about; "not always" of "X is always Y" denies it (false)."""
    if isinstance(given, bool):
        return Reading(given)
    if isinstance(given, int) and given in (0, 1):  # a YAML 1 or 0
        return Reading(bool(given))
    if not isinstance(given, str):
        return Reading(unclear=f"The grader could not read {given!r} as true or false")
    sign = unread_sign(given, (statement,))
    if sign:
        return Reading(unclear=f"{given.strip()!r} has a sign the grader does not read ({sign})")
    # a superscript, circled or fraction number ("¹", "①") would fold into a digit: kept as a sign nothing reads
    kept = "".join("¤" if unicodedata.category(c) == "No" and c not in statement else c for c in given)
    text = re.sub(r"n['’]t\b", " not", _plain(" ".join(kept.split())))
    text = _HEDGE_TAIL.sub("", _HEDGE_HEAD.sub("", text), count=1).strip()
    denial = _denial(text, statement, words)
    if denial is not None:
        return denial
    if not [t for t in _VTOKEN.findall(text) if t in words or _one_typo(t, words)] and not _NOT_THE_CASE.match(
            " ".join(_WORD.findall(text))):
        return Reading(unclear=f"The grader could not read {given.strip()!r} as true or false")
    number = re.match(r"[-+]?(?:\d+(?:[.,]\d+)?|[.,]\d+)(?:e[-+]?\d+)?", text)
    if number and number.group() not in ("0", "1"):  # "1.5", "0,5", "1e-3": a number, not a verdict
        return Reading(unclear=f"{given.strip()!r} is a number, not true or false")
    split = _REASON_START.search(text)
    head, reason = (text[:split.start()], text[split.end():]) if split else (text, "")
    if split and not head.strip():  # "(true)", "- false": the verdict comes after the opening sign
        return read_verdict(text[split.end():], words) if text[split.end():] != text else Reading(
            unclear=f"{given.strip()!r} does not say plainly true or false")
    value, why = _head_verdict(head, words)
    if value is None:
        return Reading(unclear=f"{given.strip()!r} does not say plainly true or false ({why})")
    reason = _HEDGE_TAIL.sub("", reason, count=1).strip()
    reason_tokens = re.sub(r"n['’]t\b", " not", reason)
    stated = {words[t] for t in _WORD.findall(reason_tokens) if t in words and len(t) > 1}
    stated |= {MARKS[c] for c in reason_tokens if c in MARKS}
    bare = _VTOKEN.findall(reason_tokens)
    if bare and all(t in words or t in _BARE for t in bare):  # "true, 0": a digit alone is a verdict said again
        stated |= {words[t] for t in bare if t in words}
    if stated - {value} or any(t in _NEGATORS for t in _WORD.findall(reason_tokens)[:1]):
        return Reading(unclear=f"{given.strip()!r} does not say plainly true or false")
    if reason and all(t in words or t in _BARE for t in _WORD.findall(reason)) and _WORD.findall(reason):
        reason = ""  # "no, false", "true. it's true": the verdict said again
    return Reading(value, reason=reason)


# What a false statement is often false for, and what "not" before it denies: "not always", "not only",
# "not by default", "not the same". "not useful", "not add up to 1" deny a part that may be true: a person reads them.
QUALIFIERS = frozenset("always only never all every each same default exactly necessarily solely purely entirely "
                       "completely typically usually just both".split())
_DENIAL = re.compile(r"^not\s+(?P<echo>[^,;:.!?()\-–—]+?)\s*(?:$|[,;:.!?(]|\s[-–—]+\s|[-–—]+\s|\s+(?=so\b))")


def _denial(text: str, statement: str, words: dict[str, bool]) -> Reading | None:
    """"not always", "not by default", "not the same - false": "not" before words the statement says, in its
    order and with one of its QUALIFIERS, denies the statement (a false verdict). Only of a statement that
    negates nothing itself; what follows is the reason, read as any reason is (a verdict said again in it
    must agree)."""
    found = _DENIAL.match(text)
    claim = _WORD.findall(_plain(statement))
    if found is None or not claim or set(claim) & (_NEGATORS | {"no", "never", "cannot", "without"}):
        return None
    echo = _WORD.findall(found.group("echo"))
    if not echo or any(w in words for w in echo) or not set(echo) & QUALIFIERS or not any(
            _in_order(echo[1:], claim[i + 1:]) for i, w in enumerate(claim) if w == echo[0] and i > 0):
        return None  # the statement's words in its order, not from its first word: "not attention" says nothing
    reason = text[found.end():].strip(" ,;:.!?-–—")
    reason = re.sub(r"^so\s+", "", reason)
    stated = {words[t] for t in _WORD.findall(reason) if t in words and len(t) > 1}
    if stated - {False}:
        return Reading(unclear=f"{text!r} does not say plainly true or false")
    if _WORD.findall(reason) and all(t in words or t in _BARE for t in _WORD.findall(reason)):
        reason = ""  # "not always - false": the verdict said again
    return Reading(False, reason=reason)


def _word_slip(written: str, word: str) -> bool:
    """A typo of `word`: one letter added, left out or two swapped (words of four letters or more), or one
    changed (six or more: shorter words have real neighbours one letter away)."""
    from rapidfuzz.distance import OSA

    if min(len(written), len(word)) < 4 or not (written.isalpha() and word.isalpha()) or \
            OSA.distance(written, word, score_cutoff=1) > 1:
        return False  # letters only: one character of "O(n²)", "(2, 7, 7)" or "exp(0) = 1" is its meaning
    return len(word) >= 6 or _shuffled(written, word)


def _slipped_wording(text: str, options: dict[str, str], also: dict[str, tuple[str, ...]]) -> str | None:
    """The one option whose text or other wording the answer writes word for word, some words with a typo."""
    written = option_wording(text).split()
    found = set()
    for option, wording in [(i, t) for i, t in options.items()] + [(i, w) for i, ws in also.items() for w in ws]:
        words = option_wording(wording).split()
        if len(words) == len(written) and written != words and all(
                a == b or _word_slip(a, b) for a, b in zip(written, words)):
            found.add(option)
    return found.pop() if len(found) == 1 else None


def _in_order(part: list[str], whole: list[str]) -> bool:
    remaining = iter(whole)
    return all(word in remaining for word in part)  # "in" on an iterator: each after the one before


def _bare_text(text: str) -> str:
    return " ".join(w for w in normalize_answer(text).split() if w not in _ARTICLES)


def option_wording(text: str) -> str:
    """How an option's text and its other wordings (`also`) are compared: articles, accents and hyphens between
    words aside ("decoder self attention" is "decoder self-attention")."""
    return re.sub(r"(?<=[^\W\d_])-(?=[^\W\d_])", " ", _plain(_bare_text(text)))


# "B, T_q, T_k, d_k": names in a list, one of them longer than a letter: a shape in symbols, not two options
_NAMES = re.compile(r"^[(\[]?(?=.*[A-Za-z_]\w)[A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)+[)\]]?$")
_SHAPE = re.compile(r"^(?:torch\.size\s*\(\s*)?[(\[]?\s*(\d+(?:\s*[,x×*]\s*\d+)+)\s*,?\s*[)\]]?\s*\)?\.?$", re.I)
_SPACED_SHAPE = re.compile(r"^[(\[]\s*(\d+(?:\s+\d+)+)\s*[)\]]$")  # "[2 7 7]": brackets make the spaces a list


def _shape(text: str) -> tuple[int, ...] | None:
    """A shape however it is written: (2, 7, 7), [2, 7, 7], 2x7x7, 2 × 7 × 7, torch.Size([2, 7, 7])."""
    found = _SHAPE.match(text.strip()) or _SPACED_SHAPE.match(text.strip())
    return tuple(int(n) for n in re.findall(r"\d+", found.group(1))) if found else None


_HEDGED_HEAD = re.compile(_HEDGE_HEAD.pattern, re.I)
_BECAUSE = re.compile(r"^(?:because|since|parce\s+que|car|porque|weil)\s+", re.I)  # "why ...?" "because <option>"
# Words that only introduce the choice: "I'd go with b", "my answer is (c)", "it's the decoder"
_CHOOSING = re.compile(r"^(?:i(?:\s*['’]\s*d|\s+would|\s*['’]\s*ll|\s+will)?\s+(?:go\s+with|pick|choose|say)|"
                       r"(?:my|the)\s+answer\s+is|it\s*['’]?\s*s|it\s+is|je\s+choisis|elijo|ich\s+w[äa]hle)"
                       r"\s*[:,]?\s+", re.I)
# The letter last: "2x7x7 (b)", "(B, T_q, T_k, d_k) -> a", "v^T tanh(W_q q + W_k k), so b"
_LETTER_AFTER = re.compile(r"^(?P<text>.*?\S)\s*(?:,\s*)?(?:->|=>|→|\bso\b|\bthus\b|\bhence\b)\s*"
                           r"[(\[]?(?P<letter>[a-z])[)\]]?\s*[.!]?$", re.S | re.I)
_HEDGED_TAIL = re.compile(_HEDGE_TAIL.pattern, re.I)
# The letter at the end, in brackets: "del decodificador (b)", "über die Key-Positionen (b)"
_LETTER_LAST = re.compile(r"^(?P<text>.*?\S)[\s,;:\-–—]*[(\[](?P<letter>[a-z])[)\]]\s*$", re.S | re.I)


def read_choice(given: object, options: dict[str, str], also: dict[str, tuple[str, ...]] | None = None) -> Reading:
    """options: id -> text; also: id -> other wordings of that option. The option id an answer names, or why
    it names none (or several). A hedge around the answer ("b?", "I think (a)") says how sure the writer is."""
    if not isinstance(given, str):
        return Reading(unclear=f"The grader could not read {given!r} as one of the options {', '.join(options)}")
    texts = [*options.values(), *(w for forms in (also or {}).values() for w in forms)]
    sign = unread_sign(given, texts) or next((c for c in given if c in MARKS and c not in "".join(texts)), "")
    if sign:  # "b ✗" may mean "not b", "c 👍" may not be the answer either
        return Reading(unclear=f"{given.strip()!r} has a sign the grader does not read beside an option ({sign})")
    text = _OPTION_PREFIX.sub("", given.strip())
    unhedged = _HEDGED_TAIL.sub("", _HEDGED_HEAD.sub("", _BECAUSE.sub("", text, count=1)), count=1).strip()
    unhedged = _CHOOSING.sub("", unhedged, count=1).strip() or unhedged
    if unhedged and unhedged != text:
        reading = read_choice(unhedged, options, also)
        if reading.value is not None:
            return reading
    named = [c.casefold() for c in re.findall(r"\b[a-z]\b", text, re.I) if c.casefold() not in ("y", "o")]
    if _SEVERAL.match(text) and len(named) >= 2 and all(c in options for c in named):
        return Reading(unclear=f"{given.strip()!r} names more than one option", several=tuple(dict.fromkeys(named)))
    last = _LETTER_LAST.match(text) or _LETTER_AFTER.match(text)
    if last and last.group("letter").casefold() in options and not _LETTER.match(text):
        moved = f"{last.group('letter')}) {last.group('text')}"
        reading = read_choice(moved, options, also)
        quoted = repr(moved).strip("'\"")
        return replace(reading, unclear=reading.unclear.replace(quoted, given.strip()))
    by_text = {normalize_answer(t): i for i, t in options.items()}
    by_bare = {_bare_text(t): i for i, t in options.items()}
    wordings = {option_wording(w): i for i, forms in (also or {}).items() for w in forms}
    wordings.update({option_wording(t): i for i, t in options.items()})  # the text itself, hyphens aside
    whole = normalize_answer(text)
    def reads_as(part: str) -> set[str]:
        return {by_text.get(normalize_answer(part)), by_bare.get(_bare_text(part)),
                wordings.get(option_wording(part))} - {None}

    lead = re.match(r"^[(\[]?([a-z])[)\].:,;\-–—=]?\s+(.*)$", text, re.S | re.I)
    if lead and lead.group(1).casefold() in options:  # "a key positions": the letter a, then option b's text
        letter, rest = lead.group(1).casefold(), lead.group(2)
        named = reads_as(rest)
        # unless the letter is the first word of that option's own text ("a weighted sum of the values")
        own = _plain(rest).split()[:1] != [letter] and any(
            _plain(w).split()[:1] == [letter] for x in named for w in (options[x], *(also or {}).get(x, ())))
        if named and named != {letter} and (not own or (_plain(rest).split() or [""])[0] in _ARTICLES):
            return Reading(unclear=f"{given.strip()!r} gives the letter ({letter}) with the text of option "
                                   f"({', '.join(sorted(named))})")
    tail = re.match(r"^(.*?[^\s,;:/\-–—])[\s,;:/\-–—]*\s[(\[]?([a-z])[)\]]?\.?$", text, re.S | re.I)
    if tail and tail.group(2).casefold() in options:  # "a weighted sum of values a": text of b, then the letter a
        named = reads_as(tail.group(1))
        if named and named != {tail.group(2).casefold()}:
            return Reading(unclear=f"{given.strip()!r} gives the letter ({tail.group(2).casefold()}) with the text "
                                   f"of option ({', '.join(sorted(named))})")
    if whole in by_text:  # the text alone ("a weighted sum of values" is not the letter a)
        return Reading(by_text[whole])
    if len(by_bare) == len(options) and _bare_text(text) in by_bare:  # "a weighted sum of the values"
        return Reading(by_bare[_bare_text(text)])
    if option_wording(text) in wordings:  # another wording the quiz lists ("quadratic", "du décodeur")
        return Reading(wordings[option_wording(text)], restated=True)
    slipped = _slipped_wording(text, options, also or {})
    if slipped is not None:  # "decoer", "bilinar W", "addtive tahn MLP": one slip in a word of one wording
        return Reading(slipped, restated=True)
    shapes = {_shape(t): i for i, t in options.items()}
    if None not in shapes and len(shapes) == len(options) and _shape(text) in shapes:  # "2x7x7" is (2, 7, 7)
        return Reading(shapes[_shape(text)])
    place = _PLACE.match(_plain(whole))
    if place:
        places = [n for n, spelled in _PLACES.items() if place.group(1) in spelled]
        if places and places[0] <= len(options):  # "the second one": options are shown in the quiz's order
            return Reading(list(options)[places[0] - 1])
    match = _LETTER.match(text)
    if match is None or match.group(1).casefold() not in options:
        return _text_then_reason(given, text, options, also)
    letter, rest = match.group(1).casefold(), normalize_answer(match.group(2))
    if not rest or rest == normalize_answer(options[letter]):
        return Reading(letter)
    if wordings.get(option_wording(match.group(2))) == letter or (
            _shape(match.group(2)) is not None and _shape(match.group(2)) == _shape(options[letter])):
        return Reading(letter, restated=True)  # "b) du décodeur", "b) 2x7x7"
    named = by_text.get(rest, wordings.get(option_wording(match.group(2)), next(
        (i for i, t in options.items() if _shape(match.group(2)) and _shape(t) == _shape(match.group(2))), None)))
    if named is not None:
        return Reading(unclear=f"{given.strip()!r} gives the letter ({letter}) with the text of option ({named})")
    if _LETTER.match(match.group(2)) and _LETTER.match(match.group(2)).group(1).casefold() in options \
            and not _NAMES.match(match.group(2).strip()):
        second = _LETTER.match(match.group(2))
        several = (letter, second.group(1).casefold()) if not second.group(2).strip() else ()
        return Reading(unclear=f"{given.strip()!r} names more than one option", several=several)
    if re.search(r"(?:^|[\s,;(])[(\[]?([a-z])[)\]](?:\s|$)", match.group(2), re.I) and any(
            m.casefold() in options and m.casefold() != letter
            for m in re.findall(r"(?:^|[\s,;(])[(\[]?([a-z])[)\]](?:\s|$)", match.group(2), re.I)):
        return Reading(unclear=f"{given.strip()!r} names another option beside ({letter})")
    own = normalize_answer(options[letter])
    if rest.startswith(own) and not rest[len(own):][:1].isalnum():  # "c) O(n²) since every pair is scored"
        return Reading(letter, reason=rest[len(own):].lstrip(" ,;:.!-").strip(), restated=True)
    return Reading(letter, reason=match.group(2).strip())


def _text_then_reason(given: str, text: str, options: dict[str, str],
                      also: dict[str, tuple[str, ...]] | None = None) -> Reading:
    """An option's text (or another wording of it), then a reason: "O(n²) - every query is scored against
    every key"."""
    split = re.search(r"\s+[-–—]+\s+|[,;:](?:\s|$)|\s+(?=(?:because|since|as)\b)", text)
    if split:
        head = normalize_answer(text[:split.start()])
        bare = _bare_text(text[:split.start()])
        named = [i for i, t in options.items() if head in (normalize_answer(t), _bare_text(t))
                 or bare == _bare_text(t) or _plain(bare) in {option_wording(w) for w in (also or {}).get(i, ())}]
        if len(named) == 1:
            return Reading(named[0], reason=text[split.end():].strip(), restated=True)
    return Reading(unclear=f"The grader could not read {given.strip()!r} as one of the options "
                           f"{', '.join(sorted(options))}")
