"""A quiz that contradicts itself is refused: no listed misconception reads the same as a right answer or as
another misconception, for any answer type.

A misconception equal to the key scores a right answer as wrong; an accepted answer equal to a misconception
gives full marks to the mistake; two misconceptions that read the same leave the second one dead (the first
always wins). "Reads the same" is the grader's own reading of the type: the same option, numbers within the
tolerance, the same formula under sympy, the same code as written or the same tensors in the sandbox, the same
normalised text or the same key terms in the same order. Each refusal is one sentence naming both entries
and what follows from it; the loader puts the question in front of it.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable

from .normalize import normalize_answer

Entry = tuple[str, Any, bool]  # (label for the author, the text as written, is it a listed misconception)
RIGHT = ("the key", "'accepted[")  # labels of right answers; 'scored[i]' answers have the score the quiz fixes


def contradiction_problems(raw: dict, languages: tuple[str, ...], formulas: bool = True) -> list[str]:
    """Pairs of a question's entries that read the same (code: as written; `code_contradictions` runs them)."""
    same = _reader(raw, languages, formulas)
    if same is None:
        return []
    return _once_each((a, b, how) for a, b in _pairs(entries(raw)) if (how := _safely(same, a[1], b[1])))


def _once_each(found: Iterable[tuple[Entry, Entry, str]]) -> list[str]:
    """One sentence per misconception at fault (its first contradiction): one fix per line for the author."""
    told: set[str] = set()
    problems = []
    for a, b, how in found:
        if b[0] not in told:
            told.add(b[0])
            problems.append(_sentence(a, b, how))
    return problems


def entries(raw: dict) -> list[Entry]:
    """What the question accepts (key, accepted answers) and what it lists as wrong (misconceptions)."""
    right: list[Entry] = []
    if raw["type"] in ("multiple_choice", "numeric"):
        right.append(("the key", raw["answer"], False))
    if raw.get("maths"):
        right.append(("the key", raw["maths"]["answer"], False))
    if raw.get("code"):
        right.append(("the key", raw["code"]["answer"], False))
    right += [(f"'accepted[{i}]'", a, False) for i, a in enumerate(raw.get("accepted", []))]
    right += [(f"'scored[{i}]'", item["answer"], False) for i, item in enumerate(raw.get("scored", []))]
    listed = [(f"'misconceptions[{i}]'", m["answer"], True) for i, m in enumerate(raw.get("misconceptions", []))]
    return right + listed


def _pairs(items: list[Entry]) -> Iterable[tuple[Entry, Entry]]:
    """Every pair with a misconception in it: right answers may read alike, that is what they are for."""
    for i, a in enumerate(items):
        for b in items[i + 1:]:
            if a[2] or b[2]:
                yield a, b


def _sentence(a: Entry, b: Entry, how: str) -> str:
    if a[2] and b[2]:
        why = "an answer that is both is scored by the first alone, whatever the second declares"
    elif a[0].startswith(RIGHT):
        why = "a right answer would be scored as the listed mistake, or the mistake as right"
    else:
        why = "an answer that is both gets the score 'scored' fixes, never the misconception's"
    return f"{a[0]} {a[1]!r} and {b[0]} {b[1]!r} {how}: {why}"


def _safely(same: Callable[[Any, Any], str], a: Any, b: Any) -> str:
    """An entry that cannot be read contradicts nothing here: misconceptions.py refuses it by its own words."""
    try:
        return same(a, b)
    except Exception:  # noqa: BLE001 - a reading that fails is reported by the readability check
        return ""


def _reader(raw: dict, languages: tuple[str, ...], formulas: bool) -> Callable[[Any, Any], str] | None:
    if raw["type"] == "multiple_choice":
        return lambda a, b: "name the same option" if a == b else ""
    if raw["type"] == "numeric":
        return _numbers(raw)
    if raw.get("maths"):
        return _formulas(raw) if formulas else None
    if raw.get("code"):
        return _code_as_written(raw)
    if raw["type"] == "short_answer":
        return _texts(raw, languages)
    return None


def _numbers(raw: dict) -> Callable[[Any, Any], str]:
    from .equivalence import read_number

    constants, tolerance = raw.get("constants") or {}, raw["tolerance"]

    def same(a: Any, b: Any) -> str:
        x, y = read_number(a, constants), read_number(b, constants)
        if x is None or y is None:
            return ""
        # the grader's own slack (misconceptions.matching_number): what it would match, this refuses
        return f"are within the tolerance ({tolerance:g}) of each other" \
            if abs(x - y) <= tolerance + 1e-9 * max(1.0, abs(x), abs(y)) else ""
    return same


def _formulas(raw: dict) -> Callable[[Any, Any], str]:
    from .equivalence import compare_formula
    from .notation import Vocabulary

    spec = raw["maths"]
    vocabulary = Vocabulary(frozenset(spec["symbols"]), {" ".join(k.casefold().split()): v
                                                         for k, v in (spec.get("aliases") or {}).items()})

    def same(a: Any, b: Any) -> str:
        return "are the same formula under sympy" if compare_formula(a, str(b), vocabulary, spec.get("factor")).equal \
            else ""
    return same


def _code_as_written(raw: dict) -> Callable[[Any, Any], str]:
    from .code_answers import MODULES, canonical_source, written_alike
    from .notation import Vocabulary, read_expression

    spec = raw["code"]
    vocabulary = Vocabulary(frozenset([*spec["inputs"], *(spec.get("constants") or {})]),
                            {" ".join(k.casefold().split()): v for k, v in (spec.get("aliases") or {}).items()},
                            frozenset(spec.get("functions", [])), MODULES)

    def written(text: Any) -> str:
        return written_alike(canonical_source(read_expression(str(text), vocabulary)))

    def same(a: Any, b: Any) -> str:
        if "".join(str(a).split()) == "".join(str(b).split()):
            return "are the same code"
        return "are the same code as the grader reads it" if written(a) == written(b) else ""
    return same


def _texts(raw: dict, languages: tuple[str, ...]) -> Callable[[Any, Any], str]:
    from .meaning import lexicon, read_meaning

    lex = lexicon(tuple((k, tuple(v)) for k, v in (raw.get("terms") or {}).items()), languages) \
        if raw.get("terms") else None

    def same(a: Any, b: Any) -> str:
        if normalize_answer(a) == normalize_answer(b):
            return "are the same text once normalised"
        if lex is None:
            return ""
        x, y = read_meaning(a, lex), read_meaning(b, lex)
        if x.unknown or y.unknown or x.terms != y.terms:
            return ""
        return f"state the same key terms in the same order ({' '.join(x.terms)})"
    return same


def verdict_word_problems(data: dict, languages: tuple[str, ...]) -> list[str]:
    """A quiz's own true/false word listed both ways, or one that the quiz's languages read the other way: the
    grader would drop it silently (languages.verdict_words), and students writing it would be read by nobody."""
    from .languages import VERDICT_WORDS, plain

    extra = data.get("verdict_words") or {}
    said: dict[str, set[bool]] = {}
    for language in languages:
        for value, words in VERDICT_WORDS[language].items():
            for word in words:
                said.setdefault(plain(word), set()).add(value)
    problems = []
    own = {True: [plain(w) for w in extra.get("true", [])], False: [plain(w) for w in extra.get("false", [])]}
    for word in dict.fromkeys(own[True]):
        if word in own[False]:
            problems.append(f"'verdict_words' lists {word!r} both under true and under false: the grader reads "
                            "neither, so list it once")
    for value in (True, False):
        for word in dict.fromkeys(own[value]):
            if word not in own[not value] and (not value) in said.get(word, set()):
                problems.append(f"'verdict_words' lists {word!r} under {str(value).lower()}, and the quiz's "
                                f"languages read it as {str(not value).lower()}: the grader reads neither, so "
                                "drop it or the language")
    return problems


def code_contradictions(question: Any, evaluator: Any) -> list[str]:
    """The code question's entries that compute the same tensors as another in the sandbox (each entry run on
    the question's inputs, as a student's answer is), where one of the two is a misconception."""
    from .code_answers import canonical_source, input_sets, read_expression, same_tensor, vocabulary

    spec = question.code
    seeds, variants = input_sets(spec), spec.variants or ("dot",)
    items = [("the key", spec.answer, False), *((f"'accepted[{i}]'", a, False) for i, a in enumerate(question.accepted)),
             *((f"'misconceptions[{i}]'", m.answer, True) for i, m in enumerate(question.misconceptions))]
    computed = []
    for label, text, listed in items:
        try:
            source = canonical_source(read_expression(str(text), vocabulary(spec)))
        except Exception:  # noqa: BLE001 - unreadable entries are refused by their own check
            continue
        outputs = evaluator.computed(spec, source)
        if all(not isinstance(v, str) and v is not None for v in outputs.values()):
            computed.append(((label, text, listed), outputs))
    points = {f"'misconceptions[{i}]'": m.points for i, m in enumerate(question.misconceptions)}
    def found() -> Iterable[tuple[Entry, Entry, str]]:
        for i, (a, x) in enumerate(computed):
            for b, y in computed[i + 1:]:
                # two misconceptions computing alike are both used when they score alike (each matches as
                # written, e.g. `F.softmax(scores)` beside `dim=0`); scored differently, the list's order decides
                if not (a[2] or b[2]) or (a[2] and b[2] and points[a[0]] == points[b[0]]):
                    continue
                if any(all(same_tensor(x.get((v, s)), y.get((v, s))) for s in seeds) for v in variants):
                    yield a, b, "compute the same tensors on the question's inputs"
    return _once_each(found())
