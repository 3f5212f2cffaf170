# %% [markdown]
# # Attention: single-head attention from scratch
#
# *Lesson: "Attention" (Module 10.1).* Attention is **soft, content-based lookup**: for each query it computes
# a distribution over key positions and returns the matching weighted average of the values,
#
# $$\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\big(\mathrm{score}(Q, K)\big)\, V .$$
#
# The pipeline has four stages: **project** Q/K/V from hidden states → **score** every query against every key
# → **softmax** the scores into weights $\alpha$ → **mix**: output $= \alpha V$.
#
# Conventions (the grader relies on them):
# - `Q` is `(B, T_q, d_k)`, `K` is `(B, T_k, d_k)`, `V` is `(B, T_k, d_v)`; outputs are `(B, T_q, d_v)` and
#   weights `(B, T_q, T_k)`.
# - A mask is 1/`True` where a key is **allowed**, 0/`False` where it is forbidden, broadcastable to the weights.
# - You may **not** call `F.scaled_dot_product_attention` or `nn.MultiheadAttention`: the point is to build them.

# %% role="setup"
import math

import torch
from torch import nn
import torch.nn.functional as F

# %% role="hidden-setup"
import ast
import functools
import math

import pytest
import torch

from autograder.grading import expect
from autograder.grading.student import StudentFault, seeded_inputs as inputs

pytestmark = pytest.mark.assignment("single_head_attention")

SHAPES = [(3, 5, 7, 6, 5), (1, 1, 4, 8, 3), (2, 6, 6, 6, 6), (2, 3, 9, 16, 4)]  # (B, T_q, T_k, d_k, d_v)
FORBIDDEN = {"scaled_dot_product_attention", "MultiheadAttention"}




@functools.lru_cache(maxsize=64)
def forbidden_names(source):
    """Forbidden APIs named anywhere in a student's file (parsed once per file, not per test)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return ()
    names = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    names |= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    return tuple(sorted(FORBIDDEN & names))


@pytest.fixture
def allowed_student(student):
    """The student's file, after a static check that it builds attention by hand."""
    if student.source.problem is None:
        used = forbidden_names(student.source.text)
        if used:
            raise StudentFault(f"your file uses {', '.join(used)}, which this assignment forbids: build the "
                               "score -> mask -> softmax -> mix pipeline yourself.")
    return student


def reference_attention(Q, K, V, mask=None):
    scores = Q.double() @ K.double().transpose(-2, -1) / math.sqrt(K.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ V.double(), weights


def pair(reply_output, what):
    if not isinstance(reply_output, (list, tuple)) or len(reply_output) != 2:
        raise StudentFault(f"{what} should return a tuple (output, weights), got {type(reply_output).__name__}.")
    return reply_output

# %% [markdown] exercise="attention"
# ## 1. The attention function: score → mask → softmax → mix
#
# With scaled dot-product scores:
#
# $$\alpha = \mathrm{softmax}\!\left(\frac{Q K^\top}{\sqrt{d_k}} \;\text{(masked with } -\infty\text{)}\right),
# \qquad \text{output} = \alpha V$$
#
# Return `(output, weights)` in that order. Softmax runs over the keys (`dim=-1`); mask **before** softmax.

# %% exercise="attention" role="solution"
def attention(Q, K, V, mask=None):
    """Scaled dot-product attention, built by hand.

    Q: (B, T_q, d_k)  queries
    K: (B, T_k, d_k)  keys
    V: (B, T_k, d_v)  values
    mask: None or bool / 0-1 tensor broadcastable to (B, T_q, T_k); 1/True = allowed, 0/False = forbidden
    returns: (output (B, T_q, d_v), weights (B, T_q, T_k))
    Do not call F.scaled_dot_product_attention or nn.MultiheadAttention.
    """
    # BEGIN SOLUTION
    scores = Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1])  # score
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))  # mask
    weights = F.softmax(scores, dim=-1)                        # softmax over keys
    return weights @ V, weights                                # mix
    # END SOLUTION

# %% exercise="attention" role="public"
@test_case(points=None, hidden=False)
def test_attention_shapes(attention):
    import torch
    Q, K, V = torch.randn(2, 3, 4), torch.randn(2, 5, 4), torch.randn(2, 5, 6)
    result = attention(Q, K, V)
    assert isinstance(result, tuple) and len(result) == 2, "attention should return a tuple (output, weights)"
    output, weights = result
    assert tuple(output.shape) == (2, 3, 6), (
        f"output should be (B, T_q, d_v) = (2, 3, 6), got {tuple(output.shape)}. Return (output, weights) in that "
        "order, and mix the values: weights @ V.")
    assert tuple(weights.shape) == (2, 3, 5), f"weights should be (B, T_q, T_k) = (2, 3, 5), got {tuple(weights.shape)}"
    assert torch.allclose(weights.sum(-1), torch.ones(2, 3), atol=1e-5), "each query's weights must sum to 1 over the keys"


@test_case(points=None, hidden=False)
def test_attention_scale_and_mask(attention):
    import torch
    Q = torch.ones(1, 1, 4)
    K = torch.tensor([[[1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0], [9.0, 9.0, 9.0, 9.0]]])
    V = torch.tensor([[[1.0], [0.0], [100.0]]])
    output, weights = attention(Q, K, V, mask=torch.tensor([1, 1, 0]))
    assert weights[0, 0, 2] < 1e-6, "the masked key (mask 0) must get weight 0: fill its score with -inf before softmax"
    expected = torch.softmax(torch.tensor([2.0, 0.0]), dim=0)  # scores 4/sqrt(4) and 0
    assert torch.allclose(weights[0, 0, :2], expected, atol=1e-5), (
        f"with d_k = 4 the scores are q.k / sqrt(4) = [2, 0]; expected weights {expected.tolist()}, got "
        f"{weights[0, 0, :2].tolist()}. Divide by sqrt(d_k), not d_k.")

# %% exercise="attention" role="hidden"
@pytest.mark.question("attention")
@pytest.mark.points(1)
@pytest.mark.tags("returns (weights, output)")
def test_attention_returns_output_and_weights(allowed_student):
    """attention returns (output (B, T_q, d_v), weights (B, T_q, T_k)) in that order"""
    for B, T_q, T_k, d_k, d_v in SHAPES:
        Q, K, V = inputs(1, (B, T_q, d_k), (B, T_k, d_k), (B, T_k, d_v))
        output, weights = pair(allowed_student.call("attention", Q, K, V), "attention(Q, K, V)")
        expect.shape(output, (B, T_q, d_v), "the output (first element)", "Return (output, weights), output = weights @ V.")
        expect.shape(weights, (B, T_q, T_k), "the weights (second element)", "Weights are (B, T_q, T_k).")


@pytest.mark.question("attention")
@pytest.mark.points(2)
@pytest.mark.tags("wrong scale factor", "softmax over wrong dim", "wrong transpose")
def test_attention_values(allowed_student):
    """attention's output and weights match softmax(Q K^T / sqrt(d_k)) V"""
    for B, T_q, T_k, d_k, d_v in SHAPES:
        Q, K, V = inputs(2, (B, T_q, d_k), (B, T_k, d_k), (B, T_k, d_v))
        output, weights = pair(allowed_student.call("attention", Q, K, V), "attention(Q, K, V)")
        want_out, want_w = reference_attention(Q, K, V)
        expect.close(weights, want_w, f"attention weights at d_k={d_k}", "Scores are Q K^T / sqrt(d_k) with "
                     "d_k = K.shape[-1]; softmax over the keys (dim=-1).", rtol=1e-5, atol=1e-6)
        expect.close(output, want_out, f"attention output at d_v={d_v}", "Mix the values: output = weights @ V.")


@pytest.mark.question("attention")
@pytest.mark.points(2)
@pytest.mark.tags("mask after softmax", "inverted mask", "padding mask broadcast")
def test_attention_masks(allowed_student):
    """Causal and padding masks: forbidden keys get weight <= 1e-6 and rows still sum to 1"""
    B, T, d_k, d_v = 3, 6, 4, 5
    Q, K, V = inputs(3, (B, T, d_k), (B, T, d_k), (B, T, d_v))
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    padding = (torch.arange(T)[None, :] < torch.tensor([6, 3, 1])[:, None]).unsqueeze(1)
    # Queries all point along the first axis and padded keys far along it, so every padded key's score
    # is in the hundreds: zeroing after the softmax then leaves 0/0 instead of slipping through.
    Q_hot = Q + 3 * torch.eye(d_k)[0]
    K_hot = torch.where(padding.transpose(-2, -1), K, 400 * torch.eye(d_k)[0])
    cases = [(causal, "causal (T, T)", Q, K), (padding, "padding (B, 1, T_k)", Q, K),
             (causal.long(), "0/1 causal", Q, K), (padding, "padding, huge scores on padded keys", Q_hot, K_hot)]
    for mask, kind, Q, K in cases:
        output, weights = pair(allowed_student.call("attention", Q, K, V, mask), "attention with a mask")
        expect.shape(weights, (B, T, T), "the weights (second element)", "Return (output, weights).")
        allowed = mask.bool().expand(B, T, T)
        expect.masked_are_zero(weights, allowed, f"attention with a {kind} mask",
                               "Fill forbidden scores with -inf before softmax (mask 1/True = allowed).")
        expect.rows_sum_to_one(weights, f"attention with a {kind} mask", "Mask before softmax, not after.")
        want_out, want_w = reference_attention(Q, K, V, mask)
        expect.close(output, want_out, f"attention output with a {kind} mask")


@pytest.mark.question("attention")
@pytest.mark.points(1)
@pytest.mark.tags("unstable softmax")
def test_attention_large_scores(allowed_student):
    """Very large scores give finite, correct weights (softmax must subtract the row maximum)"""
    Q, K, V = inputs(16, (2, 3, 4), (2, 5, 4), (2, 5, 3))
    Q, K = Q * 30, K * 30  # scores in the hundreds: exp() overflows float32 without the max trick
    output, weights = pair(allowed_student.call("attention", Q, K, V), "attention(Q, K, V)")
    want_out, want_w = reference_attention(Q, K, V)
    hint = "exp() of a score above ~88 overflows float32: subtract each row's maximum first, or use F.softmax."
    expect.close(weights, want_w, "attention weights for large scores", hint, rtol=1e-5, atol=1e-6)
    expect.close(output, want_out, "attention output for large scores", hint)


@pytest.mark.question("attention")
@pytest.mark.points(1)
@pytest.mark.tags("graph cut")
def test_attention_gradients(allowed_student):
    """Gradients reach Q, K and V"""
    Q, K, V, seed = inputs(4, (2, 3, 4), (2, 5, 4), (2, 5, 6), (2, 3, 6))
    reply = allowed_student.run("attention", Q, K, V, grad_args=(0, 1, 2), backward={"index": 0, "grad": seed})
    for index, name in enumerate("QKV"):
        expect.grad_present(reply.arg_grads.get(str(index)), name,
                            "Avoid .detach(), torch.no_grad(), .data and NumPy round trips.")
    Qd, Kd, Vd = (t.double().requires_grad_() for t in (Q, K, V))
    reference_attention(Qd, Kd, Vd)[0].backward(seed.double())
    expect.close(reply.arg_grads["0"], Qd.grad, "the gradient with respect to Q")


@pytest.mark.question("attention")
@pytest.mark.points(1)
@pytest.mark.tags("batch cross-talk")
def test_attention_batch_independence(allowed_student):
    """Each batch item is attended on its own: the batched result equals a per-item loop"""
    Q, K, V = inputs(5, (4, 3, 4), (4, 5, 4), (4, 5, 2))
    output, _ = pair(allowed_student.call("attention", Q, K, V), "attention")
    output = expect.close(output, reference_attention(Q, K, V)[0], "the batched output",
                          "Items of a batch must not mix: no K[0], no reshape without transpose.")
    for b in range(4):
        single, _ = pair(allowed_student.call("attention", Q[b:b + 1], K[b:b + 1], V[b:b + 1]), "attention")
        expect.close(output[b:b + 1], single, f"batch item {b} alone vs in the batch",
                     "Items of a batch must not mix: no K[0], no reshape without transpose.")


@pytest.mark.question("attention")
@pytest.mark.points(1)
@pytest.mark.tags("in-place mask")
def test_attention_leaves_inputs_alone(allowed_student):
    """attention does not modify Q, K, V or the mask"""
    Q, K, V = inputs(6, (2, 4, 3), (2, 4, 3), (2, 4, 2))
    mask = torch.ones(4, 4).tril()
    reply = allowed_student.run("attention", Q, K, V, mask, check_inputs=True)
    output, _ = pair(reply.output, "attention")  # "unchanged" is the child's own report: pay it with a value
    expect.close(output, reference_attention(Q, K, V, mask)[0], "attention output with a 0/1 float mask")
    if any(reply.inputs_changed):
        changed = [n for n, c in zip(["Q", "K", "V", "mask"], reply.inputs_changed) if c]
        raise StudentFault(f"attention modified {', '.join(changed)} in place (for example with Q /= ..., "
                           "masked_fill_ or item assignment); compute new tensors instead.")

# %% [markdown] exercise="SingleHeadAttention"
# ## 2. A single-head attention layer
#
# Now add the **project** stage. Three bias-free linear maps build queries from one sequence and keys and
# values from another:
#
# $$Q = x_q W_Q^\top,\quad K = x_{kv} W_K^\top,\quad V = x_{kv} W_V^\top,\qquad
# \text{output} = \mathrm{softmax}\!\left(\frac{Q K^\top}{\sqrt{d_k}}\right) V$$
#
# With `x_kv = x_q` this is **self-attention** (encoder; causal in the decoder). With `x_q` from the decoder and
# `x_kv` from the encoder memory it is **cross-attention**: keys *and* values come from `x_kv`. Scale by
# $1/\sqrt{d_k}$ (the projected size), not $1/\sqrt{d_\text{model}}$.

# %% exercise="SingleHeadAttention" role="solution"
class SingleHeadAttention(nn.Module):
    """Project -> score -> softmax -> mix, with W_Q, W_K, W_V = nn.Linear(d_model, d_k, bias=False)."""

    def __init__(self, d_model, d_k):
        super().__init__()
        # BEGIN SOLUTION
        self.W_Q = nn.Linear(d_model, d_k, bias=False)
        self.W_K = nn.Linear(d_model, d_k, bias=False)
        self.W_V = nn.Linear(d_model, d_k, bias=False)
        self.scale = d_k ** -0.5
        # END SOLUTION

    def forward(self, x_q, x_kv, mask=None):
        """x_q: (B, T_q, d_model) queries' states; x_kv: (B, T_k, d_model) keys' and values' states.

        mask: None or broadcastable to (B, T_q, T_k), 1/True = allowed.
        returns: (output (B, T_q, d_k), weights (B, T_q, T_k))
        """
        # BEGIN SOLUTION
        Q, K, V = self.W_Q(x_q), self.W_K(x_kv), self.W_V(x_kv)
        scores = (Q @ K.transpose(-2, -1)) * self.scale
        if mask is not None:
            scores = scores.masked_fill(mask == 0, float("-inf"))
        weights = F.softmax(scores, dim=-1)
        return weights @ V, weights
        # END SOLUTION

# %% exercise="SingleHeadAttention" role="public"
@test_case(points=None, hidden=False)
def test_single_head_attention(SingleHeadAttention):
    import torch
    layer = SingleHeadAttention(d_model=8, d_k=4)
    for name in ("W_Q", "W_K", "W_V"):
        linear = getattr(layer, name, None)
        assert linear is not None and tuple(linear.weight.shape) == (4, 8), (
            f"self.{name} should be nn.Linear(d_model, d_k, bias=False) with weight shape (d_k, d_model) = (4, 8)")
        assert linear.bias is None, f"self.{name} should have no bias"
    x_q, x_kv = torch.randn(2, 3, 8), torch.randn(2, 5, 8)
    output, weights = layer(x_q, x_kv)
    assert tuple(output.shape) == (2, 3, 4) and tuple(weights.shape) == (2, 3, 5), (
        f"cross-attention with T_q = 3 queries and T_k = 5 keys should give output (2, 3, 4) and weights (2, 3, 5), "
        f"got {tuple(output.shape)} and {tuple(weights.shape)}: keys and values come from x_kv")

# %% exercise="SingleHeadAttention" role="hidden"
def module_weights(seed, d_model, d_k):
    W_Q, W_K, W_V = inputs(seed, (d_k, d_model), (d_k, d_model), (d_k, d_model))
    return {"W_Q.weight": W_Q, "W_K.weight": W_K, "W_V.weight": W_V}


def reference_layer(params, x_q, x_kv, mask=None):
    Q, K, V = (x.double() @ params[f"{n}.weight"].double().T for n, x in (("W_Q", x_q), ("W_K", x_kv), ("W_V", x_kv)))
    return reference_attention(Q, K, V, mask)


@pytest.mark.question("SingleHeadAttention")
@pytest.mark.points(1)
@pytest.mark.tags("bias in projection")
def test_layer_parameters(allowed_student):
    """SingleHeadAttention(d_model, d_k) holds W_Q, W_K, W_V of shape (d_k, d_model) and no biases"""
    (x,) = inputs(7, (1, 2, 24))
    params = module_weights(7, 24, 6)
    reply = allowed_student.run("SingleHeadAttention", x, x, init=(24, 6), params=params)
    expected = {f"{n}.weight": [6, 24] for n in ("W_Q", "W_K", "W_V")}
    if reply.param_names != expected:
        raise StudentFault(f"SingleHeadAttention(24, 6) has parameters {reply.param_names}; expected {expected}: "
                           "three nn.Linear(d_model, d_k, bias=False).")
    # The parameter list is the child's own report; pay for it only together with a value it explains.
    output, _ = pair(reply.output, "SingleHeadAttention.forward")
    expect.close(output, reference_layer(params, x, x)[0], "SingleHeadAttention(24, 6) output")


@pytest.mark.question("SingleHeadAttention")
@pytest.mark.points(2)
@pytest.mark.tags("wrong scale factor", "V projected with W_K")
def test_layer_self_attention(allowed_student):
    """Self-attention (x_kv = x_q) matches the reference, scaled by 1/sqrt(d_k)"""
    for B, T, d_model, d_k in [(3, 5, 24, 6), (1, 1, 8, 8), (2, 7, 12, 3)]:
        params = module_weights(8, d_model, d_k)
        (x,) = inputs(9, (B, T, d_model))
        reply = allowed_student.run("SingleHeadAttention", x, x, init=(d_model, d_k), params=params)
        output, weights = pair(reply.output, "SingleHeadAttention.forward")
        want_out, want_w = reference_layer(params, x, x)
        expect.close(weights, want_w, f"self-attention weights (d_model={d_model}, d_k={d_k})",
                     "Scores are Q K^T scaled by 1/sqrt(d_k) (the projected size, not d_model).", rtol=1e-4, atol=1e-5)
        expect.close(output, want_out, f"self-attention output (d_model={d_model}, d_k={d_k})",
                     "Values are V = W_V(x_kv): check you did not project V with W_K.")


@pytest.mark.question("SingleHeadAttention")
@pytest.mark.points(2)
@pytest.mark.tags("keys from x_q")
def test_layer_cross_attention(allowed_student):
    """Cross-attention: queries from x_q, keys and values from a different x_kv"""
    params = module_weights(10, 24, 6)
    for T_kv in (5, 7):  # same shape as x_q, then a different length
        x_q, x_kv = inputs(11 + T_kv, (3, 5, 24), (3, T_kv, 24))
        reply = allowed_student.run("SingleHeadAttention", x_q, x_kv, init=(24, 6), params=params)
        output, weights = pair(reply.output, "SingleHeadAttention.forward")
        want_out, want_w = reference_layer(params, x_q, x_kv)
        hint = "In cross-attention Q comes from x_q, while K and V both come from x_kv."
        expect.close(weights, want_w, f"cross-attention weights with T_kv={T_kv}", hint, rtol=1e-4, atol=1e-5)
        expect.close(output, want_out, f"cross-attention output with T_kv={T_kv}", hint)


@pytest.mark.question("SingleHeadAttention")
@pytest.mark.points(1)
@pytest.mark.tags("mask after softmax", "inverted mask")
def test_layer_causal_mask(allowed_student):
    """A causal mask hides future keys in self-attention"""
    params = module_weights(12, 12, 4)
    (x,) = inputs(13, (2, 6, 12))
    causal = torch.ones(6, 6, dtype=torch.bool).tril()
    reply = allowed_student.run("SingleHeadAttention", x, x, causal, init=(12, 4), params=params)
    output, weights = pair(reply.output, "SingleHeadAttention.forward")
    expect.shape(weights, (2, 6, 6), "the weights (second element)", "Return (output, weights).")
    expect.masked_are_zero(weights, causal.expand(2, 6, 6), "causal self-attention",
                           "Fill future scores with -inf before softmax (mask 1/True = allowed).")
    expect.close(output, reference_layer(params, x, x, causal)[0], "causal self-attention output")


@pytest.mark.question("SingleHeadAttention")
@pytest.mark.points(1)
@pytest.mark.tags("graph cut")
def test_layer_gradients(allowed_student):
    """Gradients reach x_q, x_kv, W_Q, W_K and W_V"""
    params = module_weights(14, 8, 4)
    x_q, x_kv, seed = inputs(15, (2, 3, 8), (2, 5, 8), (2, 3, 4))
    reply = allowed_student.run("SingleHeadAttention", x_q, x_kv, init=(8, 4), params=params, grad_args=(0, 1),
                                backward={"index": 0, "grad": seed})
    grads = [("x_q", reply.arg_grads.get("0")), ("x_kv", reply.arg_grads.get("1"))]
    grads += [(f"self.{n}", reply.param_grads.get(n)) for n in params]
    for name, grad in grads:
        expect.grad_present(grad, name, "Avoid .detach(), torch.no_grad(), .data and NumPy round trips.")

# %% [markdown] exercise="SingleHeadAttention"
# ## 3. Looking at the weights
#
# The weight matrix is often drawn as an alignment **heatmap**: which keys each query looked at. Below, `w[0]`
# for a short self-attention run on random inputs, then on a sequence of repeated tokens. Treat heatmaps as
# hypotheses, not proofs: attention weights are useful but not guaranteed explanations.

# %% exercise="SingleHeadAttention" role="explore"
import matplotlib.pyplot as plt

try:
    torch.manual_seed(0)
    layer = SingleHeadAttention(d_model=16, d_k=8)
    random_tokens = torch.randn(1, 6, 16)
    repeated = torch.randn(1, 2, 16).repeat(1, 3, 1)  # tokens A B A B A B
    fig, axes = plt.subplots(1, 2, figsize=(8, 3.5))
    for ax, x, title in [(axes[0], random_tokens, "random inputs"), (axes[1], repeated, "repeated tokens ABABAB")]:
        with torch.no_grad():
            _, w = layer(x, x)
        image = ax.imshow(w[0], cmap="viridis", vmin=0, vmax=1)
        ax.set_title(title)
        ax.set_xlabel("key position j")
        ax.set_ylabel("query position i")
    fig.colorbar(image, ax=axes)
    plt.show()
except NotImplementedError as missing:
    print("Finish SingleHeadAttention first:", missing)

# %% [markdown]
# **Discussion.** Is mean pooling a special case of attention? (Which weights would give it?) Where do the
# identical rows in the repeated-token heatmap come from?
