"""The order of roles splits review groups whatever notation names the roles.

Students name queries, keys and values by words ("query i", "the keys") and by the lessons' letters: Q, K, V,
q_i and k_j, q_{i}, qᵢ, QK^T. Two answers that name the same roles in another order ("softmax(score(Q, K)) V"
and "softmax(score(K, Q)) V") say different things, and a group's decision is applied to all its answers, so
the order-of-roles guard (review_meaning.signals) must tell them apart and no grouping may join them. The
generator writes role swaps in formulas, code and sentences, in every notation, beside the same other words.
"""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from autograder.quiz import grade_question
from autograder.quiz.review import cluster
from autograder.quiz.review_meaning import canonical, near, reading_form, signals

# One notation for all three roles of an answer: the letters students write, and the words.
NOTATIONS = [
    ("Q", "K", "V"), ("q", "k", "v"), ("q_i", "k_j", "v_j"), ("Q_i", "K_j", "V_j"), ("q_{i}", "k_{j}", "v_{j}"),
    ("qᵢ", "kⱼ", "vⱼ"), ("q_t", "k_s", "v_s"), ("query i", "key j", "value j"), ("the query", "the key", "the value"),
]
# {0}, {1}, {2}: the roles in the answer's order. Each template's order is its meaning.
TEMPLATES = [
    "softmax(score({0} {1})) {2}", "softmax(score({0}, {1})) {2}", "{0} {1}^T / sqrt(d_k)", "{0} @ {1}.T",
    "{0} @ {1}.transpose(-2, -1)", "{0}·{1} / √d_k, then softmax, times {2}", "{0}^T W {1}", "score({0}, {1})",
    "how strongly {0} matches {1}", "an unnormalised compatibility of {0} for {1}", "{0} attends to every {1}",
    "softmax over the scores of {0} with each {1}, weights on {2}", "{0} is compared with {1} and the result weights {2}",
]
JOINED = ["softmax({0}{1}^T){2}", "{0}{1}^T", "softmax({0}{1}ᵀ/√d){2}"]  # single letters written together
SURROUNDINGS = ["{}", "I think {}", "{}.", "it's {}", "Answer: {}", "  {}  ", "{} (I'm not sure)"]


@st.composite
def role_swaps(draw) -> tuple[str, str]:
    """(answer, the same answer with two of its roles swapped)."""
    if draw(st.booleans()):
        template, notation = draw(st.sampled_from(JOINED)), draw(st.sampled_from(NOTATIONS[:2]))
    else:
        template, notation = draw(st.sampled_from(TEMPLATES)), draw(st.sampled_from(NOTATIONS))
    present = sorted({int(c) for c in "012" if "{" + c + "}" in template})
    first, second = draw(st.sampled_from([(a, b) for a in present for b in present if a < b]))
    order = list(notation)
    swapped = list(order)
    swapped[first], swapped[second] = order[second], order[first]
    around = draw(st.sampled_from(SURROUNDINGS))
    case = draw(st.sampled_from([str, str.upper, str.lower]))
    return case(around.format(template.format(*order))), case(around.format(template.format(*swapped)))


@settings(max_examples=300)
@given(role_swaps())
def test_a_role_swap_never_has_the_guards_of_the_answer_it_swaps(pair):
    answer, swapped = pair
    assert signals(canonical(answer)) != signals(canonical(swapped)), (canonical(answer), canonical(swapped))
    assert not near(canonical(answer), canonical(swapped))
    assert len(cluster([answer, swapped])) == 2


@settings(max_examples=60)
@given(role_swaps())
def test_a_role_swap_never_joins_as_grading_reads_it(real_quizzes, pair):
    """Free text read with a question's own terms (sc-01 lists "of q_i and k_j" and "how well k_j matches q_i"):
    the reading's words keep the roles' order, and a swap stays apart."""
    question = real_quizzes["attention_score"].question("sc-01")
    meaning = {text: grade_question(question, text).meaning for text in pair}
    forms = [reading_form(m) for m in meaning.values() if m and not m.startswith(("misconception:", "§"))]
    if len(forms) == 2 and forms[0] != forms[1]:
        assert signals(forms[0]) != signals(forms[1]), forms
    assert len(cluster(list(pair), meaning=meaning, readings=True)) == 2, meaning


@settings(max_examples=150)
@given(st.sampled_from(TEMPLATES + JOINED), st.sampled_from(range(len(NOTATIONS))),
       st.sampled_from(range(len(NOTATIONS))))
def test_one_order_of_roles_in_two_notations_has_one_guard(template, one, other):
    """Q, q_i, qᵢ and "query i" name one role: respelling it turns nothing the guard compares."""
    if template in JOINED and max(one, other) > 1:
        one, other = min(one, 1), min(other, 1)
    a, b = template.format(*NOTATIONS[one]), template.format(*NOTATIONS[other])
    assert signals(canonical(a)) == signals(canonical(b)), (canonical(a), canonical(b))


@settings(max_examples=40)
@given(role_swaps(), st.sampled_from(["project, score, softmax, weighted sum: {}", "{}; project, score, softmax, "
                                      "weighted sum", "u project stuff, score, softmax, then weighted-sum, {}"]))
def test_a_role_swap_beside_an_accepted_answers_terms_never_joins_at_one_suggestion(real_quizzes, pair, around):
    """The review joins answers stating one accepted answer's key terms at one suggested score unless a word
    beside the terms turns the meaning (review.anchored): a role letter is such a word, as a role word is."""
    from autograder.quiz.grade import review_text
    from autograder.quiz.review import build_review

    quiz = real_quizzes["attention"]
    pending = {}
    for text in (around.format(p) for p in pair):
        item = grade_question(quiz.question("att-04"), text)
        if not item.pending:
            return  # the kit grades it by itself: nothing to group
        pending[review_text(text)] = {"answer": text, "students": ["s"], "meaning": item.meaning, "suggested": 1.0}
    document, groups, _ = build_review({"attention": {"att-04": pending}}, {"attention": quiz}, None)
    assert groups == 2, document["attention"]["att-04"]["groups"]
