"""When a reason written beside a verdict or an option turns nothing.

"False: the softmax blends every value" answers the question; the reason beside the verdict is graded only
where it could change the answer's meaning. It goes to a person when it negates, contrasts or hedges
("true, but the rows sum to less than 1"), when it shares a word with a misconception the question names
("true, because it uses a causal mask" where the misconception is "all self-attention is causal (masked)"),
with the statement a false verdict rejects ("false, attention is a hard argmax"), or with an option that
was not chosen ("b) queries from the encoder"), when it carries a word that is in neither the question, its key
nor its explanation ("true, encoder self-attention is unidirectional"), and whenever the question asks for
the reason. Words are
compared by their first four letters, so "masked" meets "mask" and "normalising" meets "normalises": a
loose match sends more answers to a person, never fewer.
"""
from __future__ import annotations

import re
import unicodedata
from typing import Iterable

from .normalize import plain_text

# Words that say nothing of their own, in the course's languages (shorter words are dropped below unless
# they are numbers or names such as d_k).
STOP = frozenset("""
the and that this these those there their them they then than with from into onto what which who whom whose
when where have been being does also just very much more most some such each both same over about after
before while would could should will shall here your yours ours other others too
the and are was has had can for you any may who how too per via her him his our she its one
les des une est par sur qui que aux ces ses mes son
los las del por con una uno sus
der die das den dem des ein und ist mit auf aus bei von zum zur wie was sie ihr uns
elle elles nous vous dans pour avec sont cette ceux celle celui leur leurs plus tout tous toute toutes
aussi comme
esto esta este estos estas ella ellos para como pero todo todos toda todas cada sobre tiene
dies diese dieser dieses sind wird werden haben eine einer einem einen oder auch wenn dann noch sein seine
""".split())
NEGATIONS = frozenset("""
not no never none nothing nobody neither nor cannot cant without isnt arent doesnt dont wasnt wont
ne n pas jamais rien aucun aucune ni sans non
nunca nada ningun ninguna ninguno tampoco sin
nicht kein keine keinen keiner keinem nie niemals ohne nichts
""".split())
CONTRASTS = frozenset("""
but however although though whereas yet except unless instead rather otherwise else
mais pourtant cependant sauf bien quoique
pero sino aunque excepto salvo embargo
aber jedoch sondern obwohl ausser trotzdem
""".split())
HEDGES = frozenset("""
maybe perhaps probably possibly might guess unsure sometimes partly partially depends depending usually often
mostly either only always
peut etre probablement parfois souvent depend
quizas quiza tal vez probablemente aveces depende
vielleicht wahrscheinlich manchmal teilweise kommt
""".split())
# A question that asks for the reason gets it read by a person, whatever the verdict.
_ASKS_WHY = re.compile(r"\b(?:why|explain|justify|give\s+(?:a|the|your)\s+reasons?|pourquoi|expliquez|justifiez|"
                       r"por\s*qu[eé]|explica|warum|begr[üu]nde|erkl[äa]re)\b", re.I)
_TOKENS = re.compile(r"\w+")


def fold(text: object) -> str:
    """Lower case, symbols as words (∞ -> inf), accents dropped, subscripts joined (d_k -> dk), apostrophes
    closed up (isn't -> isnt)."""
    decomposed = unicodedata.normalize("NFKD", plain_text(text))
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return re.sub(r"(?<=\w)['’](?=\w)|(?<=[^\W_])_+(?=[^\W_])", "", plain)


def tokens(text: object) -> list[str]:
    return _TOKENS.findall(fold(text))


def stems(text: object) -> set[str]:
    """The words that carry content, cut to four letters; numbers and short symbols (dk, tq) kept whole."""
    out = set()
    for word in tokens(text):
        if word in STOP or word in NEGATIONS or word in CONTRASTS or word in HEDGES:
            continue
        if word.isdigit() or (len(word) <= 3 and any(c.isdigit() for c in word)):
            out.add(word)
        elif len(word) >= 3:
            out.add(word[:4])
        elif len(word) == 2 and word.isalpha() and word not in _SHORT_WORDS:
            out.add(word)  # dk, tq: names of sizes and tensors
    return out


_SHORT_WORDS = frozenset("""
is it an as at be by do if in of on or so to up we us me my he go no
le la de du un et en au ce il on se sa ne ou si
el lo es al su tu mi ya
er es ob im am um zu da ja so wo
""".split())


def asks_for_reason(prompt: str) -> bool:
    return _ASKS_WHY.search(prompt) is not None


def doubt(reason: str, against: Iterable[str], allowed_stems: Iterable[str] = (), allowed: Iterable[str] = (),
          said: str = "") -> str:
    """Why `reason` needs a person, or "" when it turns nothing. `against`: texts the reason must not echo
    (misconceptions, the rejected statement, options not chosen); `allowed_stems`: texts whose words it may
    use (the chosen option, the prompt); `allowed`: texts whose negations and qualifiers it may repeat
    ("needs no parameters" in the chosen option's own words). `said`: the answer as the student wrote it, whose
    words the message quotes (the reason is read folded: no accents, no capitals)."""
    words = set(tokens(reason))
    allowed_words = set().union(*(tokens(t) for t in allowed))
    for kind, listed in (("negates", NEGATIONS), ("contrasts", CONTRASTS), ("hedges", HEDGES)):
        found = sorted((words & listed) - allowed_words)
        if found:
            return f"its reason {kind} ({', '.join(found)})"
    free = set().union(*(stems(t) for t in allowed_stems))
    echoed = stems(reason) & (set().union(*(stems(t) for t in against)) - free)
    if echoed:
        return f"its reason uses words of a wrong answer ({written(said or reason, echoed)})"
    return ""


def verdict_doubt(q, value: bool, reason: str, said: str = "") -> str:
    """Why the reason beside verdict `value` on true/false question `q` needs a person ("" if it does not).
    A right verdict's reason must not echo a misconception (nor, when the statement is false, the statement
    itself) and must not negate, contrast or hedge; a wrong verdict scores 0 whatever its reason, unless the
    reason takes it back ("false, but ...")."""
    if value != q.answer:
        return doubt(reason, (), said=said) if set(tokens(reason)) & (CONTRASTS | HEDGES) else ""
    if asks_for_reason(q.prompt):
        return "the question asks for the reason"
    wrong = [q.misconception or ""] + [m.says for m in q.misconceptions]
    if q.answer is False:
        return doubt(reason, wrong + [q.prompt], said=said) or _off_topic(reason, [q.explanation], said) or \
            unordered(reason, [q.explanation], said)
    return doubt(reason, wrong, allowed_stems=[q.prompt], said=said) or \
        _off_topic(reason, [q.prompt, q.explanation], said) or unordered(reason, [q.prompt, q.explanation], said)


def choice_doubt(q, chosen: str, reason: str, restated: bool = False, said: str = "") -> str:
    """The same for the words after a chosen option: a reason beside the right option must not echo an option
    not chosen; one beside a wrong option must not echo the right one (the letter may be the slip). Where the
    answer wrote the option's whole text (`restated`), the choice is said twice and the reason may use other
    words; otherwise it must keep to the course's."""
    texts = {o.id: o.text for o in q.options}
    others = [t for i, t in texts.items() if i != chosen]
    if asks_for_reason(q.prompt) and chosen == q.answer and not set(stems(reason)) <= stems(texts[chosen]):
        return "the question asks for the reason"
    if any(_contains(reason, t) for t in others):
        return "its words are another option's"
    if chosen != q.answer:
        return doubt(reason, [texts[q.answer]], allowed_stems=[texts[chosen], q.prompt], allowed=[texts[chosen]],
                     said=said)
    return doubt(reason, others, allowed_stems=[texts[chosen], q.prompt], allowed=[texts[chosen]], said=said) or (
        "" if restated else _off_topic(reason, [texts[chosen], q.prompt, q.explanation], said)) or \
        unordered(reason, [texts[chosen], q.prompt, q.explanation], said)


# A reason is vouched for only where its meaning is pinned: each of its clauses says what one text of the key
# says, in its order. Words alone let "one row per key and one column per query" (the key's words, roles
# swapped), "dot-product scores need extra parameters" (a "no" left out) or "exp(0) = 0" pass.
_CLAUSES = re.compile(r"[,;:.!?]\s|[;:!?]|\s(?:so|because|since|thus|hence|therefore|i\.e\.?|that\s+is)\s",
                      re.IGNORECASE)
_CALL = re.compile(r"[^\W_][\w.]*\s*\([^()]*\)")  # exp(0), o(tq · tk): one unit each, compared whole


# Stop words that carry a role or a count where order is the point ("K comes from the decoder", "one key")
_ORDER_WORDS = frozenset("one two each every all same both more most other over after before into from than per"
                         .split())


def _sequence(text: str) -> list[str]:
    """A text's words in order as the order check reads them: stop words out, negations kept, words cut to
    four letters, a call or bracketed formula one unit."""
    units: list[str] = []

    def unit(found: re.Match) -> str:
        units.append(re.sub(r"\s", "", found.group()))  # operators kept: q + k is not q · k
        return f" unit{len(units) - 1} "

    folded = _CALL.sub(unit, fold(text))
    out = []
    for word in _TOKENS.findall(folded):
        if re.fullmatch(r"unit\d+", word):
            out.append("(" + units[int(word[4:])] + ")")
        elif word in NEGATIONS or word in _ORDER_WORDS or word.isdigit() or any(c.isdigit() for c in word):
            out.append(word)
        elif len(word) == 1 and word in "qkvbtnx":  # the tensors and sizes: "Q, K and V" is not "Q"
            out.append(word)
        elif word in STOP or word in _SHORT_WORDS or len(word) < 2:
            continue
        else:
            out.append(word[:4])
    return out


def _contiguous(part: list[str], whole: list[str]) -> bool:
    """`part` is a run of `whole`, and not one a negation in `whole` turns ("proofs" out of "not proofs")."""
    return any(whole[i:i + len(part)] == part and (i == 0 or whole[i - 1] not in NEGATIONS)
               for i in range(len(whole) - len(part) + 1))


def unordered(reason: str, sources: list[str], said: str = "") -> str:
    """Why `reason` is not pinned by the key ("" when each clause is a run of one source's words, in order)."""
    texts = [_sequence(t) for t in sources if t]
    for clause in _CLAUSES.split(f" {reason} "):
        words = _sequence(clause)
        if words and not any(_contiguous(words, t) for t in texts):
            shown = written(said or clause, set(tokens(clause)), 8, by=lambda w: set(tokens(w)), sep=" ")
            return f"its reason is not said in the key's own order ({shown})"
    return ""


def _off_topic(reason: str, topic: list[str], said: str = "") -> str:
    """A reason is vouched for only in the course's own words: every word it carries is one of the question,
    its key or its explanation. Any other word ("unidirectional", "b) something else entirely", a reason in a
    language the key is not written in) could say the opposite, so a person reads it."""
    new = stems(reason) - set().union(*(stems(t) for t in topic))
    return f"its reason uses words the key does not ({written(said or reason, new)})" if new else ""


_WRITTEN_WORD = re.compile(r"[^\W_]+(?:['’_][^\W_]+)*")


def written(text: str, wanted: set[str], limit: int = 6, by=stems, sep: str = ", ") -> str:
    """The words of `text`, as the student wrote them, whose readings (`by`: stems) are `wanted`: what a
    message quotes (a stem such as "beca" is the grader's reading, not a word anyone wrote)."""
    out: list[str] = []
    for word in _WRITTEN_WORD.findall(str(text)):
        if by(word) & wanted and word not in out:
            out.append(word)
    return sep.join(out[:limit]) + (" ..." if len(out) > limit else "")


def _contains(text: str, option: str) -> bool:
    inner, outer = " ".join(tokens(option)), " ".join(tokens(text))
    return bool(inner) and re.search(rf"(?<!\w){re.escape(inner)}(?!\w)", outer) is not None
