"""Review groups by meaning: hedges, typos of sequence words and the question's key terms join wordings that
say the same; a negation, swapped cause and effect, swapped roles or another number never join, however the
answers are hedged or misspelt. Siblings are generated from every labelled answer (tuned and held-out sets)
and by hypothesis, not only written by hand."""
from __future__ import annotations

import re

import yaml

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autograder.quiz.grade import review_text
from autograder.quiz.review import build_review, cluster
from autograder.quiz.review_meaning import _guard_typo, canonical, near, reading_form
from tests.quiz.review_class import labelled_sources
from tests.quiz.test_quiz_review_groups import TEXTS, meaning_changes

HEDGED = [
    lambda t: "I think " + t,
    lambda t: "probably " + t,
    lambda t: t.rstrip(".?! ") + ", maybe?",
    lambda t: "i guess " + t + " i think",
]


@pytest.mark.parametrize("hedge", range(len(HEDGED)))
def test_a_hedged_answer_joins_the_bare_one(hedge):
    assert TEXTS
    missed = [(t, HEDGED[hedge](t)) for t in TEXTS if not near(canonical(t), canonical(HEDGED[hedge](t)))]
    assert not missed, missed[:5]


def test_not_sure_is_not_a_hedge_that_joins():
    """"not sure" carries a negation: kept apart (a teacher may read it as a hedge, the kit does not guess)."""
    assert not near(canonical("the softmax saturates"), canonical("the softmax saturates, not sure"))


@pytest.mark.parametrize("hedge", range(len(HEDGED)))
def test_hedges_never_hide_a_meaning_change(hedge):
    merged = [(t, o) for t in TEXTS for o in meaning_changes(t)
              if near(canonical(HEDGED[hedge](t)), canonical(o)) or near(canonical(t), canonical(HEDGED[hedge](o)))]
    assert not merged, merged[:5]


def typos(word: str) -> list[str]:
    """One letter dropped, two neighbours swapped: the slips students make."""
    dropped = [word[:i] + word[i + 1:] for i in range(1, len(word))]
    swapped = [word[:i] + word[i + 1] + word[i] + word[i + 2:] for i in range(1, len(word) - 1)]
    return [w for w in dropped + swapped if w != word]


SEQUENCE = re.compile(r"\b(instead|because|before|therefore|without)\b", re.I)


def test_a_misspelt_sequence_word_reads_as_the_word():
    pairs = [(t, SEQUENCE.sub(lambda m: slip, t, count=1)) for t in TEXTS if SEQUENCE.search(t)
             for slip in typos(SEQUENCE.search(t).group().lower())]
    assert len(pairs) >= 40
    missed = [(a, b) for a, b in pairs if not near(canonical(a), canonical(b))]
    assert not missed, missed[:5]


def test_real_words_next_to_a_guard_word_stay_themselves():
    for word in ("either", "noting", "causal", "befits", "beware", "within", "thereof", "inside"):
        assert _guard_typo(word) == word
    assert not near(canonical("either the query or the key"), canonical("neither the query nor the key"))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(TEXTS), st.sampled_from(HEDGED), st.integers(0, 3))
def test_a_typo_in_a_sequence_word_never_joins_a_negation(text, hedge, where):
    """Generated: a hedged, misspelt answer and the same answer negated are never one group."""
    match = SEQUENCE.search(text)
    slipped = SEQUENCE.sub(lambda m: typos(m.group().lower())[where % len(typos(m.group().lower()))], text,
                           count=1) if match else text
    for changed in meaning_changes(text):
        assert not near(canonical(hedge(slipped)), canonical(changed)), (slipped, changed)
        assert len(cluster([hedge(slipped), changed])) == 2


CAUSE_EFFECT = re.compile(r"^(?P<a>[^,;]+?)\s*(?P<link>,?\s*so|\s+because|\s+which makes|\s*→)\s+(?P<b>[^,;]+?)\.?$", re.I)


def test_swapped_cause_and_effect_never_join():
    """Generated from every labelled answer of the form "A so B" / "A because B" / "A → B"."""
    pairs = []
    for text in TEXTS:
        m = CAUSE_EFFECT.match(text.strip())
        if m and m.group("a").strip().casefold() != m.group("b").strip().casefold():
            pairs.append((text, f"{m.group('b')}{m.group('link')} {m.group('a')}"))
    assert len(pairs) >= 10, pairs
    merged = [(a, b) for a, b in pairs for hedge in [lambda t: t] + HEDGED if near(canonical(a), canonical(hedge(b)))]
    assert not merged, merged[:5]


# --- as grading read them: the question's key terms --------------------------------------------------

def groups_of(real_quizzes, qid, texts):
    from autograder.quiz import grade_question

    question = next(q for quiz in real_quizzes.values() for q in quiz.questions if q.id == qid)
    results = {t: grade_question(question, t) for t in texts}
    assert all(r.pending for r in results.values()), {t: r.feedback for t, r in results.items() if not r.pending}
    return cluster(texts, {}, {t: r.meaning for t, r in results.items()}, readings=True)


def test_answers_read_with_the_terms_join_across_typos_and_hedges(real_quizzes):
    same = ["THE DECODR CAN REALLY ATEND TO ALL ENCOER STATES INSTED OF ONE FINAL VECTR",
            "the decoder can look at all encoder states instead of one finl vector",
            "the decoder can probably look at all encoder states instead of one final vector"]
    apart = ["Instead of all encoder states, the decoder can look at one final vector",  # reversed
             "the encoder can look at all the decoder states instead of one vector",      # roles swapped
             "the decoder cannot look at all encoder states, only one final vector",      # negated
             "the decoder can look at two encoder states instead of one final vector"]    # another number
    groups = groups_of(real_quizzes, "att-07", same + apart)
    assert sorted(next(g for g in groups if same[0] in g)) == sorted(same), groups
    assert all(len(next(g for g in groups if t in g)) == 1 for t in apart), groups


def test_reading_forms_keep_the_terms_and_their_order():
    assert reading_form("i think s <unnormalized> <compatibility> <query-key-pair>") == \
        ("<unnormalized>", "<compatibility>", "<query-key-pair>")
    assert reading_form("<gradients-shrink> make <scores-grow>") != reading_form("<scores-grow> make <gradients-shrink>")
    assert reading_form("not <unnormalized> normalized") != reading_form("<unnormalized> normalized")


def test_a_group_whose_hints_disagree_says_so_and_the_largest_comes_first(real_quizzes):
    quiz = real_quizzes["attention"]
    pending = {
        "the decoder can look at all encoder states instead of one finl vector": {
            "answer": "the decoder can look at all encoder states instead of one finl vector",
            "students": ["a", "b", "c"], "suggested": 1.0, "why": "rubric"},
        "maybe the decoder can look at all encoder states instead of one finl vector": {
            "answer": "maybe the decoder can look at all encoder states instead of one finl vector",
            "students": ["d"], "suggested": 2.0, "why": "rubric"},
        "it removes the bottleneck": {"answer": "it removes the bottleneck", "students": ["e", "f", "g", "h"]},
    }
    document, to_decide, answers = build_review({"attention": {"att-07": pending}}, {"attention": quiz}, None)
    groups = document["attention"]["att-07"]["groups"]
    assert (to_decide, answers) == (2, 3)
    assert [len(g["students"]) for g in groups] == [4, 4]
    joined = next(g for g in groups if len(g["answers"]) == 2)
    assert joined["hint"] == 1.0 and "other answers of this group are suggested 2" in joined["why"]
    assert "suggested" not in joined  # a rubric's count is a hint: no key takes it
    assert all(g["score"] is None for g in groups)  # grouping never scores


def test_answers_stating_an_accepted_answers_terms_at_one_suggestion_share_a_group(real_quizzes):
    """Other words beside an accepted answer's key terms join a group only at one suggested score and only
    when none of them turns the meaning (a negation, a role word or letter, a number)."""
    from autograder.quiz import grade_question

    quiz = real_quizzes["attention"]
    question = quiz.question("att-04")
    texts = ["projection de Q/K/V, calcul rapide des scores, softmax, somme pondérée des valeurs",
             "u project stuff, dot them up to get scores, softmax it, then weighted-sum.",
             "project, score, softmax, weighted sum, but not of the values",
             "project the encoder, score, softmax, weighted sum",
             # the letters name roles as the words do: "the q's" beside the terms is a claim of its own
             "u project stuff into q k v, dot them up to get scores, softmax it, then weighted-sum the v's.",
             "u project stuff into q k v, dot them up to get scores, softmax it, then weighted-sum the q's."]
    pending = {}
    for text in texts:
        item = grade_question(question, text)
        assert item.pending, (text, item.feedback)
        pending[review_text(text)] = {"answer": text, "students": [text[:5]], "meaning": item.meaning,
                                      "suggested": 1.0, "why": "rubric"}
    document, to_decide, _ = build_review({"attention": {"att-04": pending}}, {"attention": quiz}, None)
    groups = [sorted(g["answers"]) for g in document["attention"]["att-04"]["groups"]]
    assert sorted(texts[:2]) in groups and all([t] in groups for t in texts[2:]), groups
    pending[review_text(texts[1])]["suggested"] = 2.0  # another suggestion: apart
    document, to_decide, _ = build_review({"attention": {"att-04": pending}}, {"attention": quiz}, None)
    assert to_decide == len(texts)


@pytest.mark.parametrize("spelling", ["-inf", "−∞", "negative infinity", "minus infinity", "-inifinity", "-infinty"])
def test_minus_infinity_in_any_spelling_is_one_answer_and_never_plus_infinity_or_zero(spelling):
    base = canonical("set its score to -inf before the softmax")
    assert near(base, canonical(f"Set its score to {spelling} BEFOR the softmax, I think?"))
    for other in ("+inf", "infinity", "0", "-1", "-inf after"):
        assert not near(canonical(f"set its score to {spelling} before the softmax"),
                        canonical(f"set its score to {other} before the softmax")), other


def test_the_questions_synonyms_and_a_typo_beside_them_join(real_quizzes):
    """Two wordings of one claim in the question's own synonyms ("has access to all source positions" is
    "can see all encoder hidden states"), one with a typo in a word no term covers: one group. The same with
    the roles or the negation turned stays apart."""
    one = "the decoder has access to all source positions rather than a fixed-length vector, which helps long sentences"
    two = "the decoder can see all encoder hidden states instead of one fixed vector, which helps long sentnces"
    turned = ["the decoder has access to a fixed-length vector rather than all source positions, which helps long sentences",
              "the decoder does not have access to all source positions rather than a fixed-length vector, which helps long sentences"]
    groups = groups_of(real_quizzes, "att-07", [one, two, *turned])
    assert sorted(next(g for g in groups if one in g)) == sorted([one, two]), groups
    assert all(len(next(g for g in groups if t in g)) == 1 for t in turned), groups


def term_paraphrases(question, text: str) -> list[tuple[str, str]]:
    """(paraphrase, swapped): the first phrase of a key term the answer uses replaced by each other phrase of
    that term (the question's own synonyms, in any language), and the first two terms' phrases swapped.
    A phrase inside a call's string literal (`float("-inf")`) is code, not words: nobody rewrites it in words."""
    found = []
    quoted = [m.span() for m in re.finditer(r"""\(\s*(['"])[^'"]*\1\s*\)""", text)]  # float("-inf")
    for name, phrases in question.terms:
        for phrase in sorted((p for p in phrases if "*" not in p), key=len, reverse=True):
            m = re.search(rf"(?<!\w){re.escape(phrase)}(?!\w)", text, re.I)
            if m and any(s < m.start() and m.end() < e for s, e in quoted):
                continue
            if m and not any(m.start() < e and s < m.end() for s, e, _ in found):
                found.append((m.start(), m.end(), [p for p in phrases if p.casefold() != phrase.casefold()]))
                break
    if not found:
        return []
    start, end, others = found[0]
    out = [(text[:start] + other + text[end:], "") for other in [o for o in others if "*" not in o][:4]]
    if len(found) >= 2:
        (s1, e1, _), (s2, e2, _) = sorted(found[:2])
        if re.fullmatch(r"[\s,]*(?:and|&)?\s*(?:the\s+)?", text[e1:s2], re.I):
            return out  # "A and B" says what "B and A" says: a swap across a bare "and" turns nothing
        out.append(("", text[:s1] + text[s2:e2] + text[e1:s2] + text[s1:e1] + text[e2:]))
    return out


def test_paraphrases_in_the_questions_own_terms_join_and_swapped_terms_do_not(real_quizzes):
    """Generated from every pending labelled free-text answer of a question with key terms."""
    from autograder.quiz import grade_question

    by_id = {q.id: q for quiz in real_quizzes.values() for q in quiz.questions if q.terms and q.grading == "text"}
    joined = apart = 0
    missed, merged = [], []
    for path in labelled_sources():
        for qid, rows in (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).items():
            question = by_id.get(str(qid))
            for row in (rows or []) if question else []:
                text = str(row.get("answer", ""))
                for paraphrase, swapped in term_paraphrases(question, text):
                    other = paraphrase or swapped
                    results = {t: grade_question(question, t) for t in (text, other)}
                    if not all(r.pending for r in results.values()) or results[text].meaning == results[other].meaning and swapped:
                        continue  # graded by the kit, or a swap that reads the same (one term twice)
                    groups = cluster([text, other], {}, {t: r.meaning for t, r in results.items()}, readings=True)
                    if paraphrase:
                        joined += 1
                        if len(groups) != 1:
                            missed.append((text, other))
                    else:
                        apart += 1
                        if len(groups) != 2:
                            merged.append((text, other))
    assert joined >= 100 and apart >= 30, (joined, apart)
    assert not merged, merged[:5]
    assert len(missed) <= joined // 100, (len(missed), joined, missed[:5])  # 3 of 779 when written: in code
