"""Listed misconceptions: the kit scores a wrong answer only as the course declared it would be scored.

Teachers differ on partial credit ("softmax(score(Q, K))" without the V: one gives 1 of 2, another 0), so
the kit never invents it. A question may list the wrong answers it expects (`misconceptions:`), each
matched the way the question's right answers are (the same option, number, formula, computed tensors or
key terms), with the points the course gives for it. A listed misconception without `points` goes to
review with the misconception named. Any other wrong answer scores 0 where a teacher would give 0 (a
wrong option, verdict or number: `wrong_answers: zero`, the default there) and is read by a person where
a teacher may give partial credit (a wrong formula or code answer: `wrong_answers: review`, the default
there); a quiz or a question may say otherwise.
"""
from __future__ import annotations

from typing import Any

from .model import Misconception, Question
from .normalize import normalize_answer

DEFAULT_POLICY = {"maths": "review", "code": "review", "numeric": "zero"}


def wrong_answer_policy(raw: dict, quiz_level: str | None) -> str:
    """What happens to a wrong answer no listed misconception matches: the question's word, the quiz's, or
    the default for how the question is graded."""
    kind = "maths" if raw.get("maths") else "code" if raw.get("code") else raw["type"]
    return raw.get("wrong_answers") or (quiz_level if kind in DEFAULT_POLICY else None) \
        or DEFAULT_POLICY.get(kind, "zero")


def misconception_problems(raw: dict, formulas: bool = True) -> list[str]:
    """What a schema cannot check: a misconception is a wrong answer, worth less than full marks, that the
    grader can read. `formulas=False` leaves out the formula comparison (sympy: half a second of start-up),
    for grading runs of quizzes already checked in full when authored and by the kit's tests."""
    problems = []
    if raw.get("wrong_answers") and raw["type"] == "short_answer" and not (raw.get("maths") or raw.get("code")):
        problems.append("'wrong_answers' is for number, formula and code answers: free text that no rule "
                        "reads always goes to review")
    for i, item in enumerate(raw.get("misconceptions", [])):
        where = f"'misconceptions[{i}]' {item['answer']!r}"
        points = item.get("points")
        if points is not None and points >= raw["points"]:
            problems.append(f"{where} scores {points:g}: an answer worth full marks is not a misconception")
        problem = _unreadable(raw, item["answer"]) if formulas or not raw.get("maths") else ""
        if problem:
            problems.append(f"{where}: {problem}")
    return problems


def _unreadable(raw: dict, answer: Any) -> str:
    from .equivalence import compare_formula, read_number
    from .notation import Unreadable, UnknownName, Vocabulary, read_expression

    if raw["type"] == "multiple_choice":
        return "" if answer in [o["id"] for o in raw["options"]] else "is not one of the option ids"
    if raw["type"] == "numeric":
        value = read_number(answer, raw.get("constants") or {})
        return "cannot be read as a number" if value is None else ""
    if raw.get("maths"):
        spec = raw["maths"]
        vocabulary = Vocabulary(frozenset(spec["symbols"]), {" ".join(k.casefold().split()): v
                                                             for k, v in (spec.get("aliases") or {}).items()})
        verdict = compare_formula(answer, spec["answer"], vocabulary, spec.get("factor"))
        return "cannot be read as a formula" if verdict.equal is None else ""
    if raw.get("code"):
        from .code_answers import MODULES

        spec = raw["code"]
        vocabulary = Vocabulary(frozenset([*spec["inputs"], *(spec.get("constants") or {})]),
                                {" ".join(k.casefold().split()): v for k, v in (spec.get("aliases") or {}).items()},
                                frozenset(spec.get("functions", [])), MODULES)
        try:
            read_expression(answer, vocabulary)
        except (UnknownName, Unreadable) as problem:
            return f"cannot be read as code ({problem})"
    return ""  # reading the same as the key, an accepted answer or another misconception: contradictions.py


def matching_choice(q: Question, option_id: str) -> Misconception | None:
    return next((m for m in q.misconceptions if m.answer == option_id), None)


def matching_number(q: Question, value: float) -> Misconception | None:
    from .equivalence import read_number

    for m in q.misconceptions:
        listed = read_number(m.answer, dict(q.constants))
        if listed is not None and abs(value - listed) <= q.tolerance + 1e-9 * max(1.0, abs(listed)):
            return m
    return None


def matching_formula(q: Question, given: Any) -> Misconception | None:
    from .equivalence import compare_formula
    from .notation import Vocabulary

    vocabulary = Vocabulary(frozenset(q.maths.symbols), dict(q.maths.aliases))
    return next((m for m in q.misconceptions
                 if compare_formula(given, str(m.answer), vocabulary, q.maths.factor).equal), None)


def matching_text(q: Question, given: Any, terms: tuple[str, ...] | None) -> Misconception | None:
    """The same normalised text, or (with terms) the same key terms in the same order and nothing else."""
    from .meaning import lexicon, read_meaning

    answer = normalize_answer(given)
    for m in q.misconceptions:
        if normalize_answer(m.answer) == answer:
            return m
        if terms and q.terms:
            listed = read_meaning(m.answer, lexicon(q.terms, q.languages))
            if not listed.unknown and listed.terms == terms:
                return m
    return None


def named(m: Misconception) -> str:
    """The reviewer's hint for a listed misconception."""
    points = "" if m.points is None else f"; the quiz gives it {m.points:g}"
    return f"listed misconception: {m.says}{points}"
