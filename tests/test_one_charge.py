"""One mistake, one charge (docs/grading.md): a single mistake costs points in the question of the function that makes it,
and nowhere else.

`saturation` has nothing to implement: it runs the experiment on the student's own functions and judges the
behaviour (raw-score entropy falls as d_k grows, scaled stays put, the gradient shrinks). A transposed dot_scores
cost 6 points in 5 checks, an input changed in place by scaled_dot_scores or attention_weights (every value right)
cost both saturation points. Generated here through the real engine: the reference with one mistake in one
function, for mistakes that keep the behaviour (transposed, in place several ways, entropy in bits) and mistakes
that break it (no scaling, entropy's sign, a cut graph): each loses points in its own question only. Two controls:
a mistake only the experiment sees (right on every other probe) is still charged there, and a function that
raises still scores the experiment 0, as the stub does.

The same for a layer that calls the student's own `attention`: a mistake in `attention` is charged there, not
again in `SingleHeadAttention`; a layer with a mistake of its own is charged for it.
"""
from __future__ import annotations

import pytest

from autograder.grading.plugin import one_charge
from autograder.results import FAILED, PASSED, TestResult
from tests.classroom import LAYER_CALLS_ATTENTION, grade, solution_text, write_class

pytestmark = pytest.mark.slow

SINGLE = {  # student -> (the function's question, its wrong definition)
    "transposed-dot": ("dot_scores", "def dot_scores(Q, K):\n    return K @ Q.transpose(-2, -1)\n"),
    "in-place-scaled-div": ("scaled_dot_scores", "def scaled_dot_scores(Q, K):\n    Q.div_(math.sqrt(K.shape[-1]))\n"
                                                 "    return Q @ K.transpose(-2, -1)\n"),
    "in-place-scaled-data": ("scaled_dot_scores", "def scaled_dot_scores(Q, K):\n    Q.data = Q / math.sqrt(K.shape[-1])\n"
                                                  "    return Q @ K.transpose(-2, -1)\n"),
    "in-place-weights-max": ("attention_weights", "def attention_weights(scores, mask=None):\n"
                                                  "    if mask is not None:\n        scores = apply_mask(scores, mask)\n"
                                                  "    scores -= scores.max(dim=-1, keepdim=True).values\n"
                                                  "    return F.softmax(scores, dim=-1)\n"),
    "in-place-weights-fill": ("attention_weights", "def attention_weights(scores, mask=None):\n"
                                                   "    scores.masked_fill_(scores != scores, 0.0)\n"
                                                   "    if mask is not None:\n"
                                                   "        scores.masked_fill_(mask == 0, float('-inf'))\n"
                                                   "    return F.softmax(scores, dim=-1)\n"),
    "entropy-in-bits": ("softmax_entropy", "def softmax_entropy(weights):\n"
                                           "    return -torch.special.xlogy(weights, weights).sum(-1) / math.log(2)\n"),
    "entropy-sign": ("softmax_entropy", "def softmax_entropy(weights):\n"
                                        "    return torch.special.xlogy(weights, weights).sum(-1)\n"),
    "no-scaling": ("scaled_dot_scores", "def scaled_dot_scores(Q, K):\n    return Q @ K.transpose(-2, -1)\n"),
    # a callee's mistake, seen through the caller built on it (grading/callees.py; generated: test_callee_charge.py)
    "small-fill-called-by-weights": ("apply_mask", "def apply_mask(scores, mask):\n"
                                                   "    return scores.masked_fill(mask == 0, -1e4)\n"),
    "transposed-dot-called-by-scaled": ("dot_scores", "def dot_scores(Q, K):\n    return K @ Q.transpose(-2, -1)\n\n\n"
                                                      "def scaled_dot_scores(Q, K):\n"
                                                      "    return dot_scores(Q, K) / math.sqrt(K.shape[-1])\n"),
    "weights-graph-cut": ("attention_weights", "def attention_weights(scores, mask=None):\n"
                                               "    if mask is not None:\n        scores = apply_mask(scores, mask)\n"
                                               "    return F.softmax(scores.detach(), dim=-1)\n"),
}
# wrong only on the experiment's own inputs (16 x 32 queries): no other check sees it, so the experiment charges it
ONLY_THE_EXPERIMENT_SEES = ("def dot_scores(Q, K):\n    if tuple(Q.shape[:2]) == (16, 32):\n"
                            "        return torch.zeros(Q.shape[0], Q.shape[1], K.shape[1])\n"
                            "    return Q @ K.transpose(-2, -1)\n")
RAISES = "def softmax_entropy(weights):\n    raise RuntimeError('broken')\n"


ATTENTION = ("def attention(Q, K, V, mask=None):\n    scores = Q @ K.transpose(-2, -1) / SCALE\n"
             "    if mask is not None:\n        scores = scores.masked_fill(mask == 0, float('-inf'))\n"
             "    weights = F.softmax(scores, dim=DIM)\n    return weights @ V, weights\n")
LAYER_SINGLE = {  # student -> (questions that must lose points, code appended to the reference)
    "layer-via-attention-no-scaling": ({"attention"}, ATTENTION.replace("SCALE", "1.0").replace("DIM", "-1")
                                       + "\n\n" + LAYER_CALLS_ATTENTION),
    "layer-via-attention-sqrt-d-v": ({"attention"}, ATTENTION.replace("SCALE", "math.sqrt(V.shape[-1] + 1)")
                                     .replace("DIM", "-1") + "\n\n" + LAYER_CALLS_ATTENTION),
    "layer-via-attention-mask-after": ({"attention"}, "def attention(Q, K, V, mask=None):\n"
                                       "    weights = F.softmax(Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1]), -1)\n"
                                       "    if mask is not None:\n        weights = weights * (mask != 0)\n"
                                       "    return weights @ V, weights\n\n\n" + LAYER_CALLS_ATTENTION),
    # a fused kernel reached inside attention only, and a 1-D (T_k,) mask read per query there (NaN rows)
    "layer-via-attention-fused": ({"attention"}, "def attention(Q, K, V, mask=None):\n    bias = None\n"
                                  "    if mask is not None:\n"
                                  "        shape = torch.broadcast_shapes(mask.shape, (Q.shape[0], Q.shape[1], "
                                  "K.shape[1]))\n"
                                  "        bias = torch.zeros(shape).masked_fill(mask == 0, float('-inf'))\n"
                                  "    kernel = getattr(torch.ops.aten, '_scaled_dot_product_' + 'attention_math')\n"
                                  "    return kernel(Q, K, V, attn_mask=bias)\n\n\n" + LAYER_CALLS_ATTENTION),
    "layer-via-attention-1d-mask-per-query": ({"attention"}, ATTENTION.replace("SCALE", "math.sqrt(K.shape[-1])")
                                              .replace("DIM", "-1").replace(
        "    if mask is not None:\n", "    if mask is not None and mask.dim() == 1 and mask.shape[0] == Q.shape[-2]:\n"
        "        mask = mask[:, None]\n    if mask is not None:\n", 1) + "\n\n" + LAYER_CALLS_ATTENTION),
    # controls: the layer's own mistake is the layer's; two mistakes are two charges
    "layer-own-mistake": ({"SingleHeadAttention"}, LAYER_CALLS_ATTENTION.replace(
        "return attention(self.W_Q(x_q), self.W_K(x_kv), self.W_V(x_kv), mask)",
        "return attention(self.W_Q(x_q), self.W_K(x_q), self.W_V(x_q), mask)")),
    "two-mistakes": ({"attention", "SingleHeadAttention"}, ATTENTION.replace("SCALE", "1.0").replace("DIM", "-1")
                     + "\n\n" + LAYER_CALLS_ATTENTION.replace("self.W_V(x_kv)", "self.W_K(x_kv)")),
}


def question_losses(result, assignment: str = "attention_scores") -> dict[str, float]:
    lost: dict[str, float] = {}
    for test in result.tests:
        if test.assignment == assignment and test.score < test.max_score:
            lost[test.question] = lost.get(test.question, 0.0) + test.max_score - test.score
    return lost


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("one-charge")
    reference = solution_text("attention_scores")
    files = {name: {"attention_scores.py": reference + "\n\n" + code} for name, (_, code) in SINGLE.items()}
    files["only-the-experiment-sees"] = {"attention_scores.py": reference + "\n\n" + ONLY_THE_EXPERIMENT_SEES}
    files["entropy-raises"] = {"attention_scores.py": reference + "\n\n" + RAISES}
    layer_reference = solution_text("single_head_attention")
    files.update({name: {"single_head_attention.py": layer_reference + "\n\n" + code}
                  for name, (_, code) in LAYER_SINGLE.items()})
    return grade(write_class(root / "class", files), root / "out", workers=2)


@pytest.mark.parametrize("name", sorted(SINGLE))
def test_a_single_mistake_is_charged_in_its_own_question_only(graded, name):
    question, _ = SINGLE[name]
    lost = question_losses(graded[name])
    assert set(lost) == {question}, f"{name}: points lost in {lost}"


@pytest.mark.parametrize("name", sorted(LAYER_SINGLE))
def test_a_layer_is_not_charged_for_its_attentions_mistake(graded, name):
    questions, _ = LAYER_SINGLE[name]
    lost = question_losses(graded[name], "single_head_attention")
    assert set(lost) == questions, f"{name}: points lost in {lost}"


def test_the_experiment_says_where_a_mistake_it_saw_is_charged(graded):
    notes = [t.output for t in graded["no-scaling"].tests if t.question == "saturation"]
    assert notes and all(n.startswith("Not charged here") and "`scaled_dot_scores`" in n for n in notes), notes


def test_a_mistake_only_the_experiment_sees_is_charged_there(graded):
    lost = question_losses(graded["only-the-experiment-sees"])
    assert lost == {"saturation": 2}, lost


def test_a_function_that_raises_scores_the_experiment_zero_as_the_stub_does(graded):
    assert question_losses(graded["entropy-raises"]).get("saturation") == 1  # the entropy check only


def result(question: str, score: float, max_score: float = 1.0, attempted: bool = True) -> TestResult:
    return TestResult(test_id=f"a::{question}{score}", name=question, assignment="a", question=question,
                      score=score, max_score=max_score, status=PASSED if score == max_score else FAILED,
                      output="" if score == max_score else "symptom", attempted=attempted)


def test_one_charge_resolves_only_against_a_question_that_lost_points():
    tests = [result("dot", 0.0), result("exp", 0.0), result("exp", 0.0), result("exp", 0.0), result("other", 0.0)]
    explained = [None, ("dot",), ("scaled",), ("other",), ("dot",)]
    tests[4] = result("other", 0.0, attempted=False)  # a stub charges nothing it could explain away
    resolved = one_charge(tests, explained)
    assert [t.score for t in resolved] == [0.0, 1.0, 0.0, 0.0, 0.0]
    assert resolved[1].status == PASSED and resolved[1].output.startswith("Not charged here")
    assert resolved[1].diagnoses == ()
    assert resolved[2] is tests[2] and resolved[3] is tests[3]
