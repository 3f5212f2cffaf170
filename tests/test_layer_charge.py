"""A layer that calls the student's own `attention` is charged only for its own mistakes (docs/grading.md: one
mistake, one charge), in every layer check, whatever the mistake in `attention` does to the layer's call: a wrong
value, a NaN, or a forbidden fused route that runs inside `attention` (charged in attention's question; the layer's
check names it and scores as passed there). Generated: wrong attentions x a correct layer that delegates to
`attention` (every layer check passes or is explained by attention); controls: a wrong layer over a right attention
(a fused route in the layer's own code, a mask of its own read wrong) still loses points.

Student code runs in this process through the child's own harness (tests/test_property_probes.py: local_student).
"""
from __future__ import annotations

import ast

import pytest

from autograder import paths
from autograder.grading.faults import ExplainedElsewhere
from autograder.grading.student import StudentFault
from tests.classroom import LAYER_CALLS_ATTENTION as DELEGATING_LAYER, solution_text
from tests.test_property_probes import GRADERS, local_student

ASSIGNMENT = "single_head_attention"
LAYER_TESTS = sorted(n for n in vars(GRADERS[ASSIGNMENT]) if n.startswith("test_layer_"))
ATTENTION_TESTS = sorted(n for n in vars(GRADERS[ASSIGNMENT]) if n.startswith("test_attention_"))


def attention_with(score="Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1])", prepare="", fill="float('-inf')",
                   after="weights = F.softmax(scores, dim=-1)\n    return weights @ V, weights") -> str:
    return (f"def attention(Q, K, V, mask=None):\n    scores = {score}\n{prepare}"
            f"    if mask is not None:\n        scores = scores.masked_fill(mask == 0, {fill})\n    {after}\n")


WRONG_ATTENTIONS = {
    # c13: a fused kernel reached by a built name; the layer's own code is right
    "math kernel by getattr": "def attention(Q, K, V, mask=None):\n"
        "    bias = None\n    if mask is not None:\n"
        "        shape = torch.broadcast_shapes(mask.shape, (Q.shape[0], Q.shape[1], K.shape[1]))\n"
        "        bias = torch.zeros(shape).masked_fill(mask == 0, float('-inf'))\n"
        "    kernel = getattr(torch.ops.aten, '_scaled_dot_product_' + 'attention_math')\n"
        "    return kernel(Q, K, V, attn_mask=bias)\n",
    "F.scaled_dot_product_attention beside a hand-made weights": "def attention(Q, K, V, mask=None):\n"
        "    scores = Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1])\n"
        "    if mask is not None:\n        scores = scores.masked_fill(mask == 0, float('-inf'))\n"
        "    weights = F.softmax(scores, dim=-1)\n"
        "    return F.scaled_dot_product_attention(Q, K, V, attn_mask=None if mask is None else mask != 0), weights\n",
    # c19: a 1-D mask of length T_q read as a per-query mask (NaN rows where a query is hidden whole)
    "1-D mask read per query": attention_with(prepare="    if mask is not None and mask.dim() == 1 and "
                                                      "mask.shape[0] == Q.shape[-2]:\n        mask = mask[:, None]\n"),
    "refuses a 1-D mask": attention_with(prepare="    if mask is not None and mask.dim() == 1:\n"
                                                 "        raise ValueError('mask must be 2-D or 3-D')\n"),
    "no scaling": attention_with(score="Q @ K.transpose(-2, -1)"),
    "softmax over queries": attention_with(after="weights = F.softmax(scores, dim=-2)\n    return weights @ V, weights"),
}
RIGHT_ATTENTION = attention_with()
WRONG_LAYERS = {  # the layer's own mistake, over a right attention
    "fused route in the layer's own code": DELEGATING_LAYER.replace(
        "        return attention(self.W_Q(x_q), self.W_K(x_kv), self.W_V(x_kv), mask)\n",
        "        out, w = attention(self.W_Q(x_q), self.W_K(x_kv), self.W_V(x_kv), mask)\n"
        "        fused = F.scaled_dot_product_attention(self.W_Q(x_q), self.W_K(x_kv), self.W_V(x_kv),\n"
        "                                               attn_mask=None if mask is None else mask != 0)\n"
        "        return fused, w\n"),
    "mask dropped by the layer": DELEGATING_LAYER.replace("self.W_V(x_kv), mask)", "self.W_V(x_kv))"),
    "layer refuses a 1-D mask itself": DELEGATING_LAYER.replace(
        "    def forward(self, x_q, x_kv, mask=None):\n",
        "    def forward(self, x_q, x_kv, mask=None):\n        if mask is not None and mask.dim() == 1:\n"
        "            raise ValueError('mask must be 2-D or 3-D')\n"),
    "keys from x_q": DELEGATING_LAYER.replace("self.W_K(x_kv), self.W_V(x_kv)", "self.W_K(x_q), self.W_V(x_q)"),
}


def outcome(text: str, test: str) -> str:
    """"passed", "explained by attention" (ExplainedElsewhere naming it) or the failure's message."""
    try:
        getattr(GRADERS[ASSIGNMENT], test)(local_student(ASSIGNMENT, text))
    except ExplainedElsewhere as fault:
        return "explained by attention" if fault.questions == ("attention",) else str(fault)
    except StudentFault as fault:
        return str(fault)
    return "passed"


@pytest.mark.parametrize("wrong", sorted(WRONG_ATTENTIONS))
def test_a_correct_layer_over_a_wrong_attention_loses_nothing(wrong):
    text = solution_text(ASSIGNMENT) + "\n\n" + WRONG_ATTENTIONS[wrong] + "\n\n" + DELEGATING_LAYER
    seen = {test: outcome(text, test) for test in LAYER_TESTS}
    assert all(o in ("passed", "explained by attention") for o in seen.values()), seen
    # and the mistake is charged once, in attention's own question
    assert any(outcome(text, test) != "passed" for test in ATTENTION_TESTS)


@pytest.mark.parametrize("wrong", sorted(WRONG_LAYERS))
def test_a_wrong_layer_over_a_right_attention_still_loses(wrong):
    text = solution_text(ASSIGNMENT) + "\n\n" + RIGHT_ATTENTION + "\n\n" + WRONG_LAYERS[wrong]
    seen = {test: outcome(text, test) for test in LAYER_TESTS}
    assert any(o not in ("passed", "explained by attention") for o in seen.values()), seen
    assert "explained by attention" not in seen.values(), seen


def test_an_attention_that_never_answers_leaves_the_layer_as_over_the_stub():
    """No failure earns more than the stub: a stub attention gives a delegating layer nothing to judge, so one that
    raises on every input must not give it marks either."""
    raises = "def attention(Q, K, V, mask=None):\n    raise RuntimeError('broken')\n"
    text = solution_text(ASSIGNMENT) + "\n\n" + raises + "\n\n" + DELEGATING_LAYER
    seen = {test: outcome(text, test) for test in LAYER_TESTS}
    assert not any(o in ("passed", "explained by attention") for o in seen.values()), seen


def test_the_delegating_layer_over_a_right_attention_passes_every_layer_check():
    text = solution_text(ASSIGNMENT) + "\n\n" + RIGHT_ATTENTION + "\n\n" + DELEGATING_LAYER
    assert {test: outcome(text, test) for test in LAYER_TESTS} == dict.fromkeys(LAYER_TESTS, "passed")
