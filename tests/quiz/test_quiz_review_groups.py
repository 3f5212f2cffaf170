"""Review groups gather answers that mean the same and never those that differ in meaning.

The siblings are generated from every labelled answer (the tuned set and, where present, the held-out
one): meaning-preserving rewrites (case, punctuation, stop words, spelling, number words, list order,
contractions) must join the original's group; meaning-changing edits (a negation added, a number changed,
before/after swapped, two roles swapped) must never share one."""
from __future__ import annotations

import random
import re

import pytest
import yaml

from autograder.quiz.review import cluster
from autograder.quiz.review_meaning import canonical, near
from tests.quiz.review_class import labelled_sources


def labelled_texts() -> list[str]:
    texts = []
    for path in labelled_sources():
        for rows in (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).values():
            texts += [str(r["answer"]) for r in rows if isinstance(r, dict) and "answer" in r]
    return [t for t in texts if re.search(r"[a-zA-Z]{3}", t) and len(t.split()) >= 2]


TEXTS = labelled_texts()
SAME = [
    lambda t: t.upper(),
    lambda t: t.rstrip(".") + ".",
    lambda t: "  ".join(t.split()),
    lambda t: t.replace(" the ", " ") if " the " in t else "the " + t,
    lambda t: t.replace("ize", "ise").replace("normalized", "normalised"),
    lambda t: re.sub(r"\btwo\b", "2", re.sub(r"\b2\b", "two", t)),
    lambda t: t.replace("is not", "isn't").replace("does not", "doesn't"),
]


def meaning_changes(text: str) -> list[str]:
    """Edits a teacher scores differently: each must never share a group with the original."""
    out = []
    if re.search(r"\b(is|are|can|does|do)\b", text):
        out.append(re.sub(r"\b(is|are|can|does|do)\b", r"\1 not", text, count=1))
    else:
        out.append("not " + text)
    if re.search(r"\d", text):
        out.append(re.sub(r"\d+", lambda m: str(int(m.group()) + 1), text, count=1))
    if re.search(r"\b(before|after)\b", text):
        out.append(re.sub(r"\b(before|after)\b", lambda m: {"before": "after", "after": "before"}[m.group()], text))
    roles = re.findall(r"\b(quer(?:y|ies)|keys?|values?|encoder|decoder|rows?|columns?)\b", text, re.I)
    if len({r.lower().rstrip("s").replace("querie", "query") for r in roles}) >= 2:
        first, second = roles[0], next(r for r in roles if r.lower()[:3] != roles[0].lower()[:3])
        swapped = re.sub(rf"\b({re.escape(first)}|{re.escape(second)})\b",
                         lambda m: second if m.group() == first else first, text)
        out.append(swapped)
    return [o for o in out if o.casefold() != text.casefold()]


@pytest.mark.parametrize("rewrite", range(len(SAME)))
def test_meaning_preserving_rewrites_join_the_group(rewrite):
    assert TEXTS, "no labelled answers found"
    missed = []
    for text in TEXTS:
        other = SAME[rewrite](text)
        if other != text and not near(canonical(text), canonical(other)):
            missed.append((text, other))
    assert not missed, missed[:5]


def test_meaning_changing_edits_never_share_a_group():
    merged = []
    for text in TEXTS:
        for other in meaning_changes(text):
            if near(canonical(text), canonical(other)):
                merged.append((text, other))
            groups = cluster([text, other])
            assert len(groups) == 2 or (text, other) in merged
    assert not merged, merged[:5]


def test_a_class_of_rewrites_collapses_to_one_group_per_meaning():
    rng = random.Random(19)
    originals = rng.sample(TEXTS, min(40, len(TEXTS)))
    answers = {o: [SAME[rng.randrange(len(SAME))](o) for _ in range(4)] for o in originals}
    everything = sorted({a for variants in answers.values() for a in variants} | set(originals))
    groups = cluster(everything)
    for original, variants in answers.items():
        home = [g for g in groups if original in g]
        assert len(home) == 1 and set(variants) <= set(home[0]), (original, variants, home)
    assert len(groups) <= len(originals)


def test_lists_in_any_order_and_synonyms_are_one_answer():
    assert near(canonical("keys, queries and values"), canonical("Queries; values & keys."))
    assert near(canonical("it is unnormalised"), canonical("it isn't normalized"))
    assert near(canonical("divide by two"), canonical("divides by 2.0"))
    assert near(canonical("torch.softmax(Q @ K.mT / math.sqrt(d_k), dim=-1) @ V"),
                canonical("F.softmax(Q @ K.mT / torch.sqrt(d_k), dim=-1) @ V"))
    assert not near(canonical("F.softmax(Q @ K.mT, dim=-1) @ V"), canonical("F.softmax(Q @ K.mT, dim=-2) @ V"))
    assert not near(canonical("the scores grow, so the gradients vanish"),
                    canonical("the gradients grow, so the scores vanish"))
    assert not near(canonical("how strongly query i likes key j"), canonical("how strongly key j likes query i"))


def test_answers_of_one_meaning_as_grading_read_it_share_a_group(real_quizzes):
    """The same listed misconception, the same simplified formula or the same computed tensors join answers
    however they are worded; answers of another meaning, or of none, stay apart."""
    from autograder.quiz import grade_question

    by_id = {q.id: q for quiz in real_quizzes.values() for q in quiz.questions}
    cases = [("sc-10", ["1/sqrt(d_k)", "d_k^(-1/2)", "it multiplies the scores by sqrt(d_k)"], ["d_k^2", "d_k ** 3"]),
             ("att-13", ["F.softmax(scores, dim=1)", "F.softmax(scores, dim=-2)", "torch.softmax(scores, 1)"],
              ["F.softmax(scores)", "F.log_softmax(scores, dim=-1)"]),
             ("sc-14", ["Q @ K.transpose(-2, -1) / 2", "torch.matmul(Q, K.transpose(1, 2)) * 0.5"],
              ["Q @ K.transpose(-2, -1) * 2"])]
    for qid, same, others in cases:
        results = {text: grade_question(by_id[qid], text) for text in same + others}
        assert all(r.pending and r.meaning for r in results.values()), {t: r.feedback for t, r in results.items()}
        meaning = {t: r.meaning for t, r in results.items()}
        groups = cluster(list(results), {}, meaning)
        joined = next(g for g in groups if same[0] in g)
        assert sorted(joined) == sorted(same), (qid, groups)
        assert len({meaning[t] for t in others}) == len(others) and not set(joined) & set(others)
