"""The graders reach the edges of the documented space (grading/space.py), and code whose answer depends on its own
history is caught (grading/calls.py: every function's probes as one stateful sequence).

- The edge cases are derived, not listed by hand: every pair of sizes equal, each at 1 and at its largest, every
  mask form at each of them with allowed scores at -1e4 and masked ones at +1e4 in one row, every rank of
  softmax_entropy's weights, causal_mask up to the largest T.
- No false fail: every correct catalogue style and the reference get full marks from these hidden tests
  (tests/test_catalogue.py, through the real engine), and the property tests of tests/test_property_probes.py
  draw edges beside ordinary points.
- Wrong code is generated at each edge (fills from -1e3 to -1e4, additive masks, fixed buffers sliced to T,
  rank-specific axes, caches keyed on id(), on an address or on a mask's layout, masks read by guessing from a
  coincidence of sizes) and must fail the hidden test of the function it sits in; fills beyond the rule's bound
  must pass, so the test judges the rule, not a number.

Student code runs in this process through the child's own harness (tests/test_property_probes.py: local_student).
"""
from __future__ import annotations

import itertools

import pytest
import torch
from hypothesis import HealthCheck, example, given, settings, strategies as st

from autograder.grading import calls as grading_calls, space
from autograder.grading.student import StudentFault
from tests.classroom import solution_text
from tests.test_property_probes import GRADERS, local_student

SIZE_NAMES = ("B", "T_q", "T_k", "d")
LARGEST = {"B": space.MAX_B, "T_q": space.MAX_T, "T_k": space.MAX_T, "d": space.MAX_D}

# The hidden tests that carry the edges and the stateful sequences, per assignment.
EDGE_TESTS = {"attention_scores": ("test_dot_scores_values", "test_scaled_dot_scores_values", "test_apply_mask_values",
                                   "test_attention_weights_softmax", "test_attention_weights_mask", "test_causal_mask",
                                   "test_padding_mask", "test_softmax_entropy_values"),
              "single_head_attention": ("test_attention_values", "test_attention_masks")}


def test_every_coincidence_and_bound_of_the_sizes_is_graded():
    sizes = [dict(zip(SIZE_NAMES, s)) for s in space.edge_sizes()]
    for a, b in itertools.combinations(SIZE_NAMES, 2):  # that pair equal, the others apart from it
        assert any(s[a] == s[b] > 1 and all(s[c] != s[a] for c in SIZE_NAMES if c not in (a, b)) for s in sizes), (a, b)
    for name in SIZE_NAMES:
        assert any(s[name] == 1 and all(s[c] > 1 for c in SIZE_NAMES if c != name) for s in sizes), name
        assert any(s[name] == LARGEST[name] for s in sizes), name
        assert max(s[name] for s in sizes) == LARGEST[name]
    assert {"B": 1, "T_q": 1, "T_k": 1, "d": 1} in sizes and any(s["B"] == s["T_q"] == 1 < s["T_k"] for s in sizes)


def test_every_mask_form_meets_every_coincidence_at_both_bounds_of_the_scores():
    probes = space.edge_masks(7)
    shapes = {(p.B, p.T_q, p.T_k) for p in probes}
    largest = (space.MAX_B, space.MAX_T, space.MAX_T)
    assert largest in shapes
    for form in space.MASK_FORMS:
        mine = [p for p in probes if p.form == form]
        assert {(p.B, p.T_q, p.T_k) for p in mine} | {largest} == shapes, form
        assert any(p.T_q == p.B > 1 != p.T_k for p in mine) and any(p.T_q == p.T_k > 1 != p.B for p in mine)
        assert any(p.T_k == p.B > 1 != p.T_q for p in mine) and any(p.B == p.T_q == 1 < p.T_k for p in mine)
        assert any(p.T_k == 1 for p in mine) and any(p.B == p.T_q == p.T_k == 1 for p in mine)
        assert {p.layout for p in mine} == set(space.EDGE_LAYOUTS), "handed over in its own shape, both layouts"
    assert {p.form for p in probes if (p.B, p.T_q, p.T_k) == largest} == set(space.LARGEST_FORMS)
    assert {p.dtype for p in probes} == set(space.MASK_DTYPES)
    for probe in probes:
        scores, mask, allowed = probe.build()
        assert tuple(mask.shape) == probe.shape() and allowed.any(-1).all()
        assert scores.abs().max() <= space.SCORE_LIMIT
        if probe.T_k > 1:  # in every row: a masked key at +1e4; allowed keys at -1e4 in the rows deepest down
            assert ((scores == space.SCORE_LIMIT) | allowed).all() and (~allowed).any(-1).all()
            assert (scores[allowed] <= -space.SCORE_LIMIT + 5).any()
            deep = (scores.masked_fill(~allowed, 0) < -space.SCORE_LIMIT + 5).any(-1)
            assert deep.any() and (scores.masked_fill(allowed, 0) == space.SCORE_LIMIT).any(-1)[deep].all()


def test_entropy_ranks_and_padding_lengths_reach_their_bounds():
    ranks = {len(s) for s in space.edge_ranks()}
    assert ranks == set(range(1, space.MAX_RANK + 1))
    assert max(s[-1] for s in space.edge_ranks()) == space.MAX_T
    assert any(len(set(s)) == 1 and len(s) >= 3 for s in space.edge_ranks()), "every axis the same size"
    lengths = space.edge_lengths()
    assert max(T_k for _, T_k in lengths) == space.MAX_T and ([1], 1) in lengths
    assert any(len(ls) == T_k for ls, T_k in lengths), "B = T_k"


def sent(assignment, test):
    """The calls a hidden test sends in sequences, the reference answering."""
    calls = []

    def recorded(student, sequence):
        calls.extend(sequence)
        return send(student, sequence)

    send = grading_calls.send_sequence
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(grading_calls, "send_sequence", recorded)
        getattr(GRADERS[assignment], test)(local_student(assignment, solution_text(assignment)))
    return calls


def test_causal_mask_is_asked_for_every_T_up_to_the_largest():
    asked = {c.args[0] for c in sent("attention_scores", "test_causal_mask") if c.judged}
    assert asked == set(range(1, space.MAX_T + 1))


@pytest.mark.parametrize("wrong_at", [(11,), (13, 37, 61), (2,), (space.MAX_T,), (41, 55, 59)])
def test_a_causal_mask_wrong_at_any_few_lengths_fails(wrong_at):
    """A mask right everywhere but at a few lengths that no buffer size suggests (a fresh cheat round's
    primes) is caught: every T the handout allows is asked."""
    causal = (f"def causal_mask(T):\n    return torch.ones(T, T, dtype=torch.bool).tril("
              f"diagonal=1 if T in {set(wrong_at)!r} else 0)\n")
    assert graded("attention_scores", "test_causal_mask", causal) is not None


@pytest.mark.parametrize("assignment, test", [(a, t) for a, tests in EDGE_TESTS.items() for t in tests])
def test_each_sequence_keeps_refills_frees_and_stirs(assignment, test):
    """Every function's sequence: the first call's inputs kept and refilled with other values, later inputs dropped,
    calls of other functions in between that are not judged, and one round trip."""
    calls = sent(assignment, test)
    judged = [c for c in calls if c.judged]
    assert calls[0].keep and any(c.reuse == 0 for c in calls) and not any(c.keep for c in calls[1:])
    assert sum(c.reuse == 0 for c in calls) == 2, "refilled with other values, then with its own again"
    if assignment == "attention_scores":
        assert any(not c.judged and c.target != judged[0].target for c in calls), "other functions in between"
    assert len(judged) >= 10




# ---- wrong code at each edge -------------------------------------------------------------------------------------
# Each template is the body of one graded function (written as a student would), {v} a parameter; the hidden test
# named beside it must fail it. MASKED_IN stands for the three functions that apply a mask.
MASK_FUNCTIONS = {"apply_mask": ("attention_scores", "test_apply_mask_values", """
def apply_mask(scores, mask):
    {prepare}
    return {fill}
"""), "attention_weights": ("attention_scores", "test_attention_weights_mask", """
def attention_weights(scores, mask=None):
    if mask is not None:
        {prepare}
        scores = {fill}
    return F.softmax(scores, dim=-1)
"""), "attention": ("single_head_attention", "test_attention_masks", """
def attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1])
    if mask is not None:
        {prepare}
        scores = {fill}
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
""")}
RIGHT_FILL = 'scores.masked_fill(mask == 0, float("-inf"))'
FILLS = {"fill": "scores.masked_fill(mask == 0, {v})", "additive": "scores + (1 - mask.float()) * {v}",
         "where": "torch.where(mask.bool(), scores, torch.full_like(scores, {v}))"}
# Masks read by guessing their meaning from a coincidence of sizes (each right where its sizes differ).
GUESSES = {
    "2-D mask read as (B, T_k) when its first size is B":
        "if mask.dim() == 2 and mask.shape[0] == scores.shape[0]: mask = mask[:, None, :]",
    "1-D mask read as one value per query when T_q = T_k":
        "if mask.dim() == 1 and mask.shape[0] == scores.shape[-2]: mask = mask[:, None]",
    "(1, T_q, T_k) mask read as (B, 1, T_k) when T_q = B":
        "if mask.dim() == 3 and mask.shape[0] == 1 and mask.shape[1] == scores.shape[0] > 1: "
        "mask = mask.transpose(0, 1)",
    "square 2-D mask read key-major":
        "if mask.dim() == 2 and mask.shape[0] == mask.shape[1]: mask = mask.T",
    "a mask's layout as a cache key":
        "global _seen\n        _seen = globals().get('_seen') or {}\n        "
        "mask = _seen.setdefault((tuple(mask.shape), mask.stride(), mask.dtype), mask.clone())",
    "the mask's address as a cache key":
        "global _seen\n        _seen = globals().get('_seen') or {}\n        "
        "mask = _seen.setdefault((mask.data_ptr(), tuple(mask.shape)), mask.clone())",
}


def graded(assignment, test, code):
    """None if the hidden test passes the reference with `code` appended, else the student's failure message."""
    student = local_student(assignment, solution_text(assignment) + "\n\n" + code)
    try:
        getattr(GRADERS[assignment], test)(student)
    except StudentFault as fault:
        return str(fault)
    return None


def mask_case(function, prepare="pass", fill=RIGHT_FILL):
    assignment, test, template = MASK_FUNCTIONS[function]
    indent = "    " if function == "apply_mask" else "        "
    prepare = prepare.replace("\n        ", "\n" + indent)
    return assignment, test, template.replace("{prepare}", prepare).replace("{fill}", fill)


NARROW = settings(max_examples=1, deadline=None, database=None, derandomize=True,
                  suppress_health_check=list(HealthCheck))


@pytest.mark.parametrize("function", sorted(MASK_FUNCTIONS))
@pytest.mark.parametrize("kind", sorted(FILLS))
@NARROW
@given(value=st.floats(-1.0e4, -1.0e3))
@example(value=-1.0e4)
def test_fills_within_the_score_range_fail(function, kind, value):
    """A fill (or an additive mask) anywhere from -1e3 to -1e4 leaks weight at allowed scores of -1e4."""
    assignment, test, code = mask_case(function, fill=FILLS[kind].replace("{v}", repr(value)))
    assert graded(assignment, test, code) is not None


@pytest.mark.parametrize("function", sorted(MASK_FUNCTIONS))
@pytest.mark.parametrize("kind", ["fill"])
@NARROW
@given(value=st.floats(-1.0e9, -2.0e4))
@example(value=-1.0e6)
def test_fills_beyond_the_rule_pass(function, kind, value):
    """A fill far enough below every allowed score (the handout's -1e6, -1e9) gives masked keys weight exactly 0:
    the edge probes judge the rule, not the number written."""
    assignment, test, code = mask_case(function, fill=FILLS[kind].replace("{v}", repr(value)))
    assert graded(assignment, test, code) is None


@pytest.mark.parametrize("function", ["apply_mask", "attention"])  # attention_weights calls apply_mask
@pytest.mark.parametrize("guess", sorted(GUESSES))
def test_masks_read_by_a_guess_or_from_a_cache_fail(function, guess):
    assignment, test, code = mask_case(function, prepare=GUESSES[guess])
    assert graded(assignment, test, code) is not None


# Caches keyed on the identity, address or layout of an input: right on the first call, stale on later ones.
CACHED = {
    "dot_scores": ("attention_scores", "test_dot_scores_values", "Q @ K.transpose(-2, -1)", "Q, K"),
    "scaled_dot_scores": ("attention_scores", "test_scaled_dot_scores_values",
                          "Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1])", "Q, K"),
    "attention_weights": ("attention_scores", "test_attention_weights_softmax", "F.softmax(scores, dim=-1)",
                          "scores, mask=None"),
    "softmax_entropy": ("attention_scores", "test_softmax_entropy_values",
                        "-torch.special.xlogy(weights, weights).sum(-1)", "weights"),
    "attention": ("single_head_attention", "test_attention_values",
                  "(lambda w: (w @ V, w))(F.softmax(Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1]), dim=-1))",
                  "Q, K, V, mask=None"),
}
KEYS = {"id": "id({x})", "address": "{x}.data_ptr()", "layout": "(tuple({x}.shape), {x}.stride(), {x}.dtype)"}


@pytest.mark.parametrize("function", sorted(CACHED))
@pytest.mark.parametrize("key", sorted(KEYS))
def test_answers_cached_on_an_inputs_identity_address_or_layout_fail(function, key):
    assignment, test, expression, parameters = CACHED[function]
    first = parameters.split(",")[0].strip()
    last = parameters.split(",")[1].strip() if function in ("dot_scores", "scaled_dot_scores", "attention") else first
    cache_key = KEYS[key].replace("{x}", last if key != "layout" else first)
    code = (f"_answers = {{}}\n\ndef {function}({parameters}):\n    key = {cache_key}\n"
            f"    if key not in _answers:\n        _answers[key] = {expression}\n    return _answers[key]\n")
    assert graded(assignment, test, code) is not None


@pytest.mark.parametrize("size", [16, space.MAX_T - 1])
def test_fixed_buffers_sliced_to_the_size_fail(size):
    causal = (f"_BUFFER = torch.ones({size}, {size}, dtype=torch.bool).tril()\n\n"
              "def causal_mask(T):\n    return _BUFFER[:T, :T]\n")
    assert graded("attention_scores", "test_causal_mask", causal) is not None
    padding = (f"_POSITIONS = torch.arange({size})\n\ndef padding_mask(lengths, T_k):\n"
               "    return (_POSITIONS[None, :T_k] < lengths[:, None]).unsqueeze(1)\n")
    assert graded("attention_scores", "test_padding_mask", padding) is not None


@pytest.mark.parametrize("rank", range(1, space.MAX_RANK + 1))
def test_entropy_over_an_axis_picked_by_rank_fails(rank):
    """Right over the last axis at every rank but one, where another axis (or no reduction) is taken."""
    other = "H.sum(-1, keepdim=True)" if rank == 1 else "H.sum(dim=1 if weights.dim() > 2 else 0)"
    code = ("def softmax_entropy(weights):\n    H = -torch.special.xlogy(weights, weights)\n"
            f"    return {other} if weights.dim() == {rank} else H.sum(-1)\n")
    assert graded("attention_scores", "test_softmax_entropy_values", code) is not None


def test_a_refusal_names_what_was_sent():
    """A function that raises on a documented input (a 1-D mask) is told the call's shapes and dtypes."""
    assignment, test, code = mask_case("apply_mask", prepare="assert mask.dim() > 1, 'bad mask'")
    message = graded(assignment, test, code)
    assert message.startswith("calling apply_mask(scores: float32 (") and "(a 1-D mask)" in message, message
    assert "raised AssertionError: bad mask" in message


def test_a_crash_in_a_call_between_is_charged_to_its_own_question_only():
    """A call of another function made between the judged ones crashes the process (here: any sequence that holds
    one): the judged calls are sent again alone, and the function under test is judged on them."""
    from autograder.sandbox import ChildFailure

    student = local_student("attention_scores", solution_text("attention_scores"))
    child = student._connect()
    answer = child.request

    def crashing(request, timeout):
        if request["op"] == "sequence" and any(not c["judged"] for c in request["calls"]):
            raise ChildFailure("crash", "the process died (killed by signal 9)")
        return answer(request, timeout)

    child.request = crashing
    for test in ("test_apply_mask_values", "test_dot_scores_values", "test_causal_mask"):
        getattr(GRADERS["attention_scores"], test)(student)
    assert student.unstirred, "later sequences go without calls in between: a broken function costs its time once"
    child.request = lambda request, timeout: (_ for _ in ()).throw(ChildFailure("crash", "the process died"))
    with pytest.raises(StudentFault, match="the process died"):
        GRADERS["attention_scores"].test_apply_mask_values(student)
