"""A reason beside a verdict or an option earns the answer's points without a person only when each of its
clauses says what one text of the key says, in that text's order (quiz/reasons.py, `unordered`). Generated
from every shipped true/false and choice question: the key's own clauses as reasons keep the credit; the
same clauses with two words swapped, a "not"/"no" taken out, or a number changed never get it by themselves."""
from __future__ import annotations

import re

from hypothesis import given, settings, strategies as st

from autograder.grading.quizzes import load_class_quizzes
from autograder.quiz import grade_question
from autograder.quiz.reasons import _CLAUSES, _sequence

QUESTIONS = [q for quiz in load_class_quizzes() for q in quiz.questions if q.type in ("true_false", "multiple_choice")]


def right_word(q) -> str:
    return ("true" if q.answer else "false") if q.type == "true_false" else f"{q.answer})"


def key_clauses(q) -> list[str]:
    """Clauses of the texts a reason may restate: the explanation (and, for a true statement or a choice, the
    prompt; for a choice, the chosen option), with at least two words the order check reads."""
    texts = [re.sub(r"^\s*\(?[a-d]\)?\.?\s*|^(?:true|false)\.\s*", "", q.explanation, flags=re.I)]
    if q.type == "multiple_choice":
        texts.append(next(o.text for o in q.options if o.id == q.answer))
    clauses = [c.strip() for t in texts for c in _CLAUSES.split(f" {t} ")]
    return [c for c in clauses if len(_sequence(c)) >= 2 and len(c) < 120]


CASES = [(q, c) for q in QUESTIONS for c in key_clauses(q)]


def swapped(clause: str, i: int, j: int) -> str | None:
    words = clause.split()
    content = [k for k, w in enumerate(words) if len(re.sub(r"\W", "", w)) >= 4]
    if len(content) < 2:
        return None
    a, b = content[i % len(content)], content[j % len(content)]
    if re.sub(r"\W", "", words[a]).lower() == re.sub(r"\W", "", words[b]).lower():
        return None
    words[a], words[b] = words[b], words[a]
    return " ".join(words)


def unnegated(clause: str) -> str | None:
    turned = re.sub(r"\s*\b(?:not|no|never)\b", "", clause, count=1, flags=re.I)
    return turned if turned != clause else None


def renumbered(clause: str) -> str | None:
    found = re.search(r"\d+", clause)
    return clause[:found.start()] + str(int(found.group()) + 3) + clause[found.end():] if found else None


def test_the_keys_own_clauses_as_reasons_keep_the_credit():
    """Every clause of every key, as the reason beside the right verdict or option, is graded as the verdict
    or option alone (or waits for a person when the key's clause itself negates or hedges)."""
    assert len(CASES) > 40
    lost = []
    for q, clause in CASES:
        result = grade_question(q, f"{right_word(q)} {clause}")
        if not result.pending and result.score < q.points:
            lost.append((q.id, clause, result.feedback))
    assert lost == []


@settings(max_examples=400, deadline=None)
@given(case=st.sampled_from(CASES), i=st.integers(0, 9), j=st.integers(0, 9),
       how=st.sampled_from(["swap", "unnegate", "renumber"]))
def test_a_reason_in_the_keys_words_that_says_otherwise_never_earns_credit_by_itself(case, i, j, how):
    q, clause = case
    changed = {"swap": lambda: swapped(clause, i, j), "unnegate": lambda: unnegated(clause),
               "renumber": lambda: renumbered(clause)}[how]()
    if changed is None or _sequence(changed) == _sequence(clause):
        return
    result = grade_question(q, f"{right_word(q)}, {changed}")
    assert result.pending or result.score < q.points, (q.id, changed, result.feedback)
