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
# - A mask is 1/`True` where a key is **allowed**, 0/`False` where it is forbidden (bool, 0/1 int or 0/1 float),
#   in any shape that broadcasts to the weights: `(T_k,)`, `(T_q, T_k)`, `(B, 1, T_k)` or `(B, T_q, T_k)`.
# - The sizes graded, each up to its largest: B up to 4, T_q and T_k up to 64, d_k up to 64. Every size may be 1
#   and any two may be equal (T_q = B, T_k = d_k, T_q = T_k ...); allowed scores reach -10 000 in the same row as
#   masked scores of +10 000. `attention` is called many times in a row on new inputs (whose memory and `id()`
#   may be those of inputs freed before) and on the same tensors refilled with other values: every answer must
#   come from the inputs of its own call.
# - **The masking rule:** a masked key must end with weight **exactly 0**, for any allowed scores with
#   $|e_{ij}| \le 10\,000$: fill with `float("-inf")` (`finfo.min`, `-1e9` and `-1e6` work too; `-30` does not).
# - Fused attention may **not** run inside your code (`F.scaled_dot_product_attention`, `nn.MultiheadAttention`,
#   `F.multi_head_attention_forward`, their `torch.ops` kernels): the point is to build them. The grader
#   switches them off and looks at what runs while your code runs, so your own helper may have any name, even
#   `scaled_dot_product_attention`.
# - A layer is graded in `eval()` mode and called several times on different inputs (with autograd on, and under
#   `torch.no_grad()` as at inference); its answer must depend only on the inputs it is given. It is also run in
#   `train()` mode: there masked keys must still get weight exactly 0, and a layer without dropout must give the
#   same answer as in `eval()` mode (with dropout on the weights, which is allowed, only the masking rule is
#   checked in training).
# - Where the lesson is silent: a row whose keys are **all** masked never occurs (what you return for one is not
#   graded); inputs are float32 and results must keep at least float32 precision (float16 results fail); the
#   layer holds exactly `W_Q`, `W_K`, `W_V` as parameters (no biases, no other learnable tensors); no input
#   (Q, K, V, x_q, x_kv, the mask) may be modified in place, on any call; your code runs in one thread of one
#   process (starting a thread or a process is refused while grading: nothing here needs one).

# %% role="setup"
import math

import torch
from torch import nn
import torch.nn.functional as F

# %% role="hidden-setup"
import contextlib
import math

import pytest
import torch

from autograder.grading import expect, tolerance as tol
from autograder.grading import circumvention, space
from autograder.grading.calls import Call, judge_sequence, refills, stateful
from autograder.diagnosis import structural
from autograder.grading.memo import memoized
from autograder.grading.probes import padding, random_mask
from autograder.grading.student import StudentFault, randn, run_request, seeded_inputs as inputs

pytestmark = pytest.mark.assignment("single_head_attention")

# (B, T_q, T_k, d_k, d_v): T_q != T_k and d_v != T_k expose swapped axes and a swapped return order;
# d_k in {6, 9, 16} keeps d_k ** 1/2, d_k, sqrt(T_k) and sqrt(64) apart from sqrt(d_k); B = 1 and T_q = 1
# appear once, for squeeze(); the square case exposes a missing transpose.
SHAPES = [(3, 5, 7, 6, 5), (1, 1, 4, 9, 3), (2, 6, 6, 6, 6), (2, 3, 9, 16, 4)]
MASK_HINT = ("A masked key (mask 0/False; 1/True = allowed) must get weight exactly 0, for bool and 0/1 masks of "
             "every shape alike, allowed scores far below zero included.")


def pair(reply_output, what):
    if not isinstance(reply_output, (list, tuple)) or len(reply_output) != 2:
        raise StudentFault(f"{what} should return a tuple (output, weights), got {type(reply_output).__name__}.")
    return reply_output


def check_attention_reply(output_weights, ref, allowed, what, hint=""):
    """Compare (output, weights) with the reference pair ((out, bound), (w, bound)), the mask rule first."""
    output, weights = pair(output_weights, what)
    (want_out, want_w) = ref
    weights = expect.shape(weights, tuple(want_w[0].shape), f"the weights of {what}", "The result is (output, "
                           "weights); the weights are (B, T_q, T_k).")
    if allowed is not None:
        expect.masked_are_zero(weights, allowed.expand(weights.shape), what, MASK_HINT)
        expect.rows_sum_to_one(weights, what, "", want_w)
    expect.within(weights, want_w, f"the weights of {what}", hint or "The weights are softmax(Q K^T / sqrt(d_k)) "
                  "over the keys, with d_k = K.shape[-1].")
    expect.within(output, want_out, f"the output of {what}", hint or "The output is weights @ V.")


@pytest.mark.question("attention")
@pytest.mark.points(0)
@pytest.mark.visibility("hidden")  # for the instructor: never shown to students
@pytest.mark.tags("probe circumvention")
def test_file_leaves_the_kernel_watch_alone(student):
    """Flagged for the instructor, no points: the file does not reach for tools that hide what code runs"""
    circumvention.flag(student)

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
    mask: None or bool / 0-1 tensor broadcastable to (B, T_q, T_k); 1/True = allowed, 0/False = forbidden.
          Masked keys must get weight exactly 0 for any allowed scores with |score| <= 1e4 (fill with -inf).
    returns: (output (B, T_q, d_v), weights (B, T_q, T_k))
    No fused attention may run inside (F.scaled_dot_product_attention, nn.MultiheadAttention).
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
        f"output should be (B, T_q, d_v) = (2, 3, 6), got {tuple(output.shape)}: the result is (output, "
        "weights), in that order, with output = weights @ V.")
    assert tuple(weights.shape) == (2, 3, 5), f"weights should be (B, T_q, T_k) = (2, 3, 5), got {tuple(weights.shape)}"
    assert torch.allclose(weights.sum(-1), torch.ones(2, 3), atol=1e-5), "each query's weights must sum to 1 over the keys"


@test_case(points=None, hidden=False)
def test_attention_scale_and_mask(attention):
    import torch
    Q = torch.ones(1, 1, 9)
    K = torch.stack([torch.full((9,), 1 / 3), torch.zeros(9), torch.full((9,), 9.0)]).unsqueeze(0)
    V = torch.tensor([[[1.0], [0.0], [100.0]]])
    result = attention(Q, K, V, mask=torch.tensor([1, 1, 0]))
    output, weights = result
    assert weights[0, 0, 2] == 0, (
        "the masked key (mask 0) must get weight exactly 0." + known_mistake("test_attention_scale_and_mask", 0, result))
    expected = torch.softmax(torch.tensor([1.0, 0.0]), dim=0)  # scores 3 / sqrt(9) and 0
    assert torch.allclose(weights[0, 0, :2], expected, atol=1e-5), (
        f"with d_k = 9 the scores are q.k / sqrt(9) = [1, 0]; expected weights {expected.tolist()}, got "
        f"{weights[0, 0, :2].tolist()}." + known_mistake("test_attention_scale_and_mask", 0, result))

# %% exercise="attention" role="hidden"
@pytest.mark.question("attention")
@pytest.mark.points(1)
@pytest.mark.tags("returns (weights, output)")
def test_attention_mixes_values(student):
    """attention returns (output, weights), the output being the weights' mix of the values, the same on every call"""
    cases = [(shape, inputs(1, (B, T_q, d_k), (B, T_k, d_k), (B, T_k, d_v))) for shape in SHAPES
             for B, T_q, T_k, d_k, d_v in [shape]]
    replies = student.runs([run_request("attention", Q, K, V, more=[((Q, K, V), {})]) for _, (Q, K, V) in cases])
    for ((B, T_q, T_k, d_k, d_v), (Q, K, V)), reply in zip(cases, replies):
        student.judging(reply)
        expect.same_each_time(reply.outputs, "attention")
        output, weights = pair(reply.output, "attention(Q, K, V)")
        weights = expect.shape(weights, (B, T_q, T_k), "the weights (second element)", "The result is (output, "
                               "weights); the weights are (B, T_q, T_k).")
        if not (weights >= 0).all():
            raise StudentFault("attention's weights have negative entries: they must be a softmax over the keys.")
        expect.rows_sum_to_one(weights, "attention's weights", "Each query's weights are a distribution over the keys.")
        expect.within(output, tol.matmul(weights, V), f"the output at d_v={d_v}",
                      "The result is (output, weights) with output = weights @ V, the weighted average of the "
                      "values.")


@pytest.mark.question("attention")
@pytest.mark.points(2)
@pytest.mark.tags("wrong scale factor", "softmax over wrong dim", "wrong transpose")
def test_attention_values(student):
    """attention's output and weights match softmax(Q K^T / sqrt(d_k)) V for d_k = 6, 9 and 16"""
    shapes = [*SHAPES, *((B, T_q, T_k, d, 1 + n % 5) for n, (B, T_q, T_k, d) in enumerate(space.edge_sizes()))]
    calls = [(Call("attention", (randn(B, T_q, d_k, seed=2000 + 3 * n), randn(B, T_k, d_k, seed=2001 + 3 * n),
                                 randn(B, T_k, d_v, seed=2002 + 3 * n))), check_unmasked)
             for n, (B, T_q, T_k, d_k, d_v) in enumerate(shapes)]
    judge_sequence(student, stateful(calls, STIRRING))


def check_unmasked(got, args, what):
    check_attention_reply(got, tol.attention(*args), None, what)


def check_masked(got, args, what):
    Q, K, V, mask = args
    allowed = (mask != 0).expand(Q.shape[0], Q.shape[1], K.shape[1])
    check_attention_reply(got, tol.attention(Q, K, V, allowed), allowed, what, "Each call has its own mask, and its "
                          "weights follow that mask.")


# Unjudged calls of the file's other definitions between the judged ones (grading/calls.py: stateful).
STIRRING = [Call("attention", (torch.ones(1, 2, 3), torch.ones(1, 4, 3), torch.ones(1, 4, 2)), judged=False),
            Call("attention", (torch.ones(2, 3, 4), torch.zeros(2, 3, 4), torch.ones(2, 3, 5),
                               torch.ones(3, 3, dtype=torch.bool).tril()), judged=False)]


def extreme_attention_inputs(probe, n):
    """(Q, K, V, mask) whose scores Q K^T / sqrt(d_k) are the edge probe's rounded to integers (allowed at -1e4,
    masked at +1e4): d_k the first of 1, 4, 16, 64 at least T_k, k_j the j-th unit vector and q_i the scores of row
    i times sqrt(d_k), so that every way of computing the scores in float32 is exact (sqrt(d_k) and its inverse
    are powers of 2), as the float64 reference is."""
    scores, mask, _ = probe.build()
    d_k = next(d for d in (1, 4, 16, 64) if d >= probe.T_k)
    K = torch.eye(probe.T_k, d_k).expand(probe.B, probe.T_k, d_k).contiguous()
    Q = torch.zeros(probe.B, probe.T_q, d_k)
    Q[..., :probe.T_k] = scores.round() * d_k ** 0.5
    (V,) = inputs(700 + n, (probe.B, probe.T_k, 1 + n % 4))
    return Q, K, V, mask


def attention_mask_probes(seed):
    """(Q, K, V, mask, allowed, what): every documented mask form and shape, T_q != T_k, rows that differ,
    causal and padding together, allowed scores far below zero, huge scores on masked keys."""
    B, T_q, T_k, d_k, d_v = 3, 5, 7, 6, 4
    Q, K, V, Qs, Ks, Vs = inputs(seed, (B, T_q, d_k), (B, T_k, d_k), (B, T_k, d_v), (B, 6, d_k), (B, 6, d_k),
                                 (B, 6, d_v))
    full, plain = random_mask(seed + 1, B, T_q, T_k), random_mask(seed + 2, T_q, T_k)
    pad = padding([7, 4, 1], T_k)
    causal = torch.ones(6, 6, dtype=torch.bool).tril()
    both = causal & padding([6, 3, 2], 6)
    axis = torch.eye(d_k)[0]
    # Queries and keys pointing in opposite directions put every allowed score near -255: a -30 fill wins.
    Q_far, K_far = Q + 25 * axis, K - 25 * axis
    # Padded keys far along the queries' direction: scores in the hundreds, so zeroing after softmax gives NaN.
    Q_hot, K_hot = Q + 3 * axis, torch.where(pad.transpose(-2, -1), K, 400 * axis)
    return [
        (Q, K, V, full, full, "a bool (B, T_q, T_k) mask whose rows differ, T_q != T_k"),
        (Q, K, V, plain.long(), plain, "a 0/1 int (T_q, T_k) mask"),
        (Q, K, V, pad.float(), pad, "a 0/1 float (B, 1, T_k) padding mask"),
        (Qs, Ks, Vs, causal.float(), causal, "a 0/1 float causal (T, T) mask, built as in the lesson"),
        (Qs, Ks, Vs, both, both, "causal and padding masks together (B, T, T)"),
        (Q_far, K_far, V, full, full, "a bool mask, every allowed score far below zero"),
        (Q_hot, K_hot, V, pad, pad, "a bool padding mask, huge scores on the padded keys"),
    ]


@pytest.mark.question("attention")
@pytest.mark.points(2)
@pytest.mark.tags("mask after softmax", "inverted mask", "padding mask broadcast", "small fill value")
def test_attention_masks(student):
    """Every mask form and shape: forbidden keys get weight exactly 0, rows sum to 1, values match"""
    judge_sequence(student, stateful([(call, check_masked) for call in masked_calls()], STIRRING))


@memoized  # the same for every student: built once per grading process
def masked_calls():
    # the fixed probes first: a mistake's diagnosis reads the calls up to the first failure
    calls = [Call("attention", (Q, K, V, mask), note=kind) for Q, K, V, mask, _, kind in attention_mask_probes(3)]
    Q, K, V = inputs(20, (3, 5, 6), (3, 7, 6), (3, 7, 4))
    calls += [Call("attention", (Q, K, V, random_mask(seed, 3, 5, 7)), note=f"the {which} of two different masks of "
                   "the same shape") for seed, which in ((21, "first"), (22, "second"))]
    # the first drawn call's Q, K and V require gradients (as in training), the others' do not
    calls += [Call("attention", drawn_attention_inputs(probe, n)[0], layouts={3: probe.child_layout()},
                   grad_args=(0, 1, 2) if n == 0 else (), note=probe.describe())
              for n, probe in enumerate(space.mask_draws(8, 42, coincident=False))]
    # the space's edges: every mask form at every coincidence and bound of the sizes, allowed scores at -1e4
    # and masked ones at +1e4 in one row
    calls += [Call("attention", extreme_attention_inputs(probe, n), layouts={3: probe.child_layout()},
                   note=probe.describe()) for n, probe in enumerate(space.edge_masks(42_000))]
    return calls


def drawn_attention_inputs(probe, n):
    """((Q, K, V, mask), allowed) for a drawn mask probe: the first feature of every key is c and that of query
    row (b, i) is chosen so that the row's scores sit at the probe's depth for that row (down to -9000, rows of
    several depths in one tensor: grading/space.py), the other features spread them as drawn."""
    _, mask, allowed = probe.build()
    d_k, d_v = 2 + n % 5, 1 + (n * 3) % 4
    Q, K, V = inputs(600 + n, (probe.B, probe.T_q, d_k), (probe.B, probe.T_k, d_k), (probe.B, probe.T_k, d_v))
    Q, K = Q * probe.spread ** 0.5, K * probe.spread ** 0.5
    c = (max(abs(probe.depth), 1.0) * d_k ** 0.5) ** 0.5
    Q[..., 0] = (probe.row_depths() * d_k ** 0.5 / c).float()
    K[..., 0] = c
    return (Q, K, V, mask), allowed


@pytest.mark.question("attention")
@pytest.mark.points(1)
@pytest.mark.tags("unstable softmax")
def test_attention_large_scores(student):
    """Very large scores (in the hundreds) give finite, correct weights"""
    Q, K, V = inputs(16, (2, 3, 6), (2, 5, 6), (2, 5, 3))
    Q, K = Q * 30, K * 30  # scores in the hundreds: exp() overflows float32 without the max trick
    check_attention_reply(student.call("attention", Q, K, V), tol.attention(Q, K, V), None,
                          "attention with scores in the hundreds", "Scores here are in the hundreds (exp() of such a "
                          "score is beyond float32); the weights must still be finite and right.")


@pytest.mark.question("attention")
@pytest.mark.points(1)
@pytest.mark.tags("graph cut")
def test_attention_gradients(student):
    """Gradients reach Q, K and V, and each equals the reference's"""
    Q, K, V, seed = inputs(4, (2, 3, 6), (2, 5, 6), (2, 5, 4), (2, 3, 4))
    reply = student.run("attention", Q, K, V, grad_args=(0, 1, 2), backward={"index": 0, "grad": seed})
    for index, name in enumerate("QKV"):
        expect.grad_present(reply.arg_grads.get(str(index)), name)
    expect.gradient_within(reply.arg_grads["0"], tol.attention_grad_q(Q, K, V, seed), "the gradient with respect to Q")
    _, grad_K, grad_V = tol.attention_backward(Q, K, V, seed)
    hint = "This check compares the gradients with respect to K and V with those of the reference attention."
    expect.gradient_within(reply.arg_grads["1"], grad_K, "the gradient with respect to K", hint)
    expect.gradient_within(reply.arg_grads["2"], grad_V, "the gradient with respect to V", hint)


@pytest.mark.question("attention")
@pytest.mark.points(1)
@pytest.mark.tags("batch cross-talk")
def test_attention_batch_independence(student):
    """Each batch item is attended on its own: the batched result equals a per-item loop"""
    Q, K, V = inputs(5, (4, 3, 6), (4, 5, 6), (4, 5, 2))
    singles = [((Q[b:b + 1], K[b:b + 1], V[b:b + 1]), {}) for b in range(4)]
    reply = student.run("attention", Q, K, V, more=singles)
    hint = "Each item of a batch is attended on its own: the batched result must equal the result item by item."
    output, _ = pair(reply.output, "attention")
    output = expect.within(output, tol.attention(Q, K, V)[0], "the batched output", hint)
    for b, single in enumerate(reply.more):
        alone, _ = pair(single, "attention")
        expect.within(alone, tol.attention(Q[b:b + 1], K[b:b + 1], V[b:b + 1])[0], f"batch item {b} alone", hint)


@pytest.mark.question("attention")
@pytest.mark.points(1)
@pytest.mark.tags("in-place mask")
def test_attention_leaves_inputs_alone(student):
    """attention does not modify Q, K, V or the mask"""
    Q, K, V = inputs(6, (2, 4, 3), (2, 4, 3), (2, 4, 2))
    mask = torch.ones(4, 4).tril()
    reply = student.run("attention", Q, K, V, mask, check_inputs=True)
    if any(reply.inputs_changed):  # a report of a change only costs the student: believed at once
        changed = [n for n, c in zip(["Q", "K", "V", "mask"], reply.inputs_changed) if c]
        raise StudentFault(f"attention modified {', '.join(changed)} in place; its inputs must be left "
                           "unchanged.")
    # "unchanged" is the child's own report: paid only with a right value, and the message says which failed
    with expect.paid_with_result("Q, K, V and the mask were left unchanged", "the checks of attention's values"):
        output, _ = pair(reply.output, "attention")
        expect.within(output, tol.attention(Q, K, V, mask.bool())[0], "attention output with a 0/1 float mask")

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

        mask: None or bool / 0-1, broadcastable to (B, T_q, T_k), 1/True = allowed; masked keys get weight 0.
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
            f"self.{name}.weight should have shape (d_k, d_model) = (4, 8)")
        assert linear.bias is None, f"self.{name} should have no bias"
    x_q, x_kv = torch.randn(2, 3, 8), torch.randn(2, 5, 8)
    output, weights = layer(x_q, x_kv)
    assert tuple(output.shape) == (2, 3, 4) and tuple(weights.shape) == (2, 3, 5), (
        f"cross-attention with T_q = 3 queries and T_k = 5 keys should give output (2, 3, 4) and weights (2, 3, 5), "
        f"got {tuple(output.shape)} and {tuple(weights.shape)} (queries come from x_q, keys and values from x_kv)")


@test_case(points=None, hidden=False)
def test_single_head_attention_values(SingleHeadAttention):
    import torch
    layer = SingleHeadAttention(d_model=6, d_k=2)  # d_model != d_k: the scale is 1 / sqrt(2)
    with torch.no_grad():
        layer.W_Q.weight.copy_(torch.tensor([[1.0, 0.0, 1.0, 0.0, 2.0, 0.0], [0.0, 1.0, 0.0, -1.0, 0.0, 1.0]]))
        layer.W_K.weight.copy_(torch.tensor([[0.5, 1.0, 0.0, 0.0, 1.0, -1.0], [1.0, 0.0, 2.0, 1.0, 0.0, 0.0]]))
        layer.W_V.weight.copy_(torch.tensor([[1.0, 1.0, 0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 1.0, 2.0, -1.0, 0.0]]))
    x_q = torch.tensor([[[1.0, 0.5, -1.0, 0.0, 1.0, 2.0], [0.0, 1.0, 1.0, -0.5, 0.0, 1.0]]])
    x_kv = torch.tensor([[[1.0, 0.0, 0.0, 1.0, 0.5, 0.0], [0.0, 2.0, -1.0, 0.0, 1.0, 1.0],
                          [1.0, 1.0, 1.0, 0.0, -1.0, 0.5]]])
    result = layer(x_q, x_kv)
    assert isinstance(result, tuple) and len(result) == 2, "forward should return a tuple (output, weights)"
    output, weights = right_result("test_single_head_attention_values", 0)
    same = all(tuple(mine.shape) == tuple(right.shape) and torch.allclose(mine.double(), right.double(), atol=1e-4)
               for mine, right in zip(result, (output, weights)))
    assert same, (
        "cross-attention with these fixed weights should give the output "
        f"{[[round(v, 4) for v in row] for row in output[0].tolist()]} and the weights "
        f"{[[round(v, 4) for v in row] for row in weights[0].tolist()]}, but gave other numbers."
        + known_mistake("test_single_head_attention_values", 0, result))

# %% exercise="SingleHeadAttention" role="hidden"
from autograder.diagnosis.compare import agree  # noqa: E402 - the layer's own rule (attention_explains)
from autograder.grading.faults import ExplainedElsewhere  # noqa: E402
from autograder.grading.layer_charge import layer_runs  # noqa: E402 - a layer's calls, charged once


def module_weights(seed, d_model, d_k):
    W_Q, W_K, W_V = inputs(seed, (d_k, d_model), (d_k, d_model), (d_k, d_model))
    return {"W_Q.weight": W_Q, "W_K.weight": W_K, "W_V.weight": W_V}


@memoized  # the same for every student: computed once per grading process
def reference_layer(params, x_q, x_kv, allowed=None):
    """Project (with the projections' own float32 bounds), then attention with the propagated bounds."""
    (Q, dQ), (K, dK), (V, dV) = (tol.linear(x, params[f"{n}.weight"]) for n, x in
                                 (("W_Q", x_q), ("W_K", x_kv), ("W_V", x_kv)))
    return tol.attention(Q, K, V, allowed, dQ=dQ, dK=dK, dV=dV)


def check_layer(student, params, d_model, d_k, calls, what, hint="", repeats=(), layouts=None, no_grad=False,
                before_values=None, paid_with=None):
    """Build one layer, call it on every (x_q, x_kv, mask, allowed) of `calls` in a row, compare each answer.
    `repeats` lists the indices of calls with identical inputs: their answers must be identical first. `what`
    names the calls (a list: one name per call); `no_grad` makes them under torch.no_grad(), as at inference;
    `before_values(reply)` judges the reply before its values are compared; `paid_with` (held, judged by): the
    values pay for a property the reply reports (expect.paid_with_result)."""
    return check_layers(student, [dict(params=params, d_model=d_model, d_k=d_k, calls=calls, what=what, hint=hint,
                                       repeats=repeats, layouts=layouts, no_grad=no_grad, before_values=before_values,
                                       paid_with=paid_with)])[0]


def layer_probe(params, d_model, d_k, calls, layouts=None, no_grad=False, refilled=0, **_):
    """The request that builds one layer and calls it on every (x_q, x_kv, mask, allowed) of `calls` in a row."""
    (x_q, x_kv, mask, allowed), *rest = calls
    first = (x_q, x_kv) if mask is None else (x_q, x_kv, mask)
    reused = len(calls) - refilled  # the calls from here on get the first call's tensors, refilled in place
    more = [(((a, b) if m is None else (a, b, m)), {}, {"reuse": 0} if n >= reused else {})
            for n, (a, b, m, _) in enumerate(rest, 1)]
    if layouts and refilled:  # a refilled call's inputs keep the first call's layout
        layouts = {**layouts, **{str(n): layouts.get("0", {}) for n in range(reused, len(calls))}}
    return run_request("SingleHeadAttention", *first, init=(d_model, d_k), params=params, more=more, layouts=layouts,
                       no_grad=no_grad)


def with_refills(layer: dict) -> dict:
    """The layer's calls, then two more on the first call's very tensors refilled in place (calls.refills: other
    values, then its own again): a layer that answers from a cache keyed on its inputs' ids, addresses, shapes or
    layouts, or on a count of calls, answers one of them from a stale entry."""
    calls = layer["calls"]
    x_q, x_kv, mask, allowed = calls[0]
    sent = (x_q, x_kv) if mask is None else (x_q, x_kv, mask)
    flipped_allowed = None if allowed is None else allowed.flip(tuple(range(allowed.dim())))
    more = [((args[0], args[1], args[2] if mask is not None else None, ok), note)  # refills: flipped, then as sent
            for (args, note), ok in zip(refills(sent), (flipped_allowed, allowed))]
    names = layer["what"] if isinstance(layer["what"], list) else [layer["what"]] * len(calls)
    return {**layer, "calls": [*calls, *(call for call, _ in more)], "refilled": len(more),
            "what": [*names, *(f"{names[0]}, {note}" for _, note in more)]}


def check_layers(student, layers):
    """check_layer for each of `layers` (dicts of its arguments), every layer's probe sent in one round trip
    (StudentFile.runs), judged in order; each layer also answers on its first call's tensors refilled in place
    (with_refills)."""
    layers = [with_refills(layer) for layer in layers]
    replies = layer_runs(student, [layer_probe(**layer) for layer in layers])
    for layer, reply in zip(layers, replies):
        judge_layer(student, student.judging(reply), **layer)
    return replies


def judge_layer(student, reply, params, d_model, d_k, calls, what, hint="", repeats=(), layouts=None, no_grad=False,
                before_values=None, paid_with=None, refilled=0):
    if before_values is not None:
        before_values(reply)
    with expect.paid_with_result(*paid_with) if paid_with else contextlib.nullcontext():
        if repeats:
            with charged_as_attentions(student, params, calls[repeats[0]], reply.outputs[repeats[0]]):
                expect.same_each_time([reply.outputs[i] for i in repeats], f"SingleHeadAttention({d_model}, {d_k}) "
                                      "in eval() mode")
        names = what if isinstance(what, list) else [what] * len(calls)
        for index, ((a, b, m, ok), got) in enumerate(zip(calls, reply.outputs)):
            with charged_as_attentions(student, params, (a, b, m, ok), got):
                check_attention_reply(got, reference_layer(params, a, b, ok), ok, f"{names[index]} (call {index + 1} "
                                      f"of {len(calls)} on the same layer)", hint)


@contextlib.contextmanager
def charged_as_attentions(student, params, call, got):
    """Every judgement of a layer's answer `got` on `call` (x_q, x_kv, mask, allowed) follows one rule: a failure
    that the student's own `attention` explains (attention_explains) is charged in attention's question, once."""
    try:
        yield
    except StudentFault as fault:
        if fault.attempted and not isinstance(fault, ExplainedElsewhere) and \
                attention_explains(student, params, call, got):
            raise attention_charged(fault) from None
        raise


def attention_explains(student, params, call, got) -> bool:
    """Whether the layer's wrong answer is the student's own `attention` on the layer's projections, while that
    attention differs from the reference there: then the failure is attention's mistake, charged in its question
    (one mistake, one charge: README). Asked only after a failure."""
    x_q, x_kv, mask, allowed = call
    Q, K, V = (tol.linear(x, params[f"{n}.weight"])[0].float() for n, x in (("W_Q", x_q), ("W_K", x_kv), ("W_V", x_kv)))
    try:
        mine = student.run("attention", Q, K, V, *(() if mask is None else (mask,)), inputs_may_change=True,
                           record=False).output
        pair(mine, "attention")
    except StudentFault:
        return False
    if not agree(got, mine).same:
        return False
    try:
        check_attention_reply(mine, tol.attention(Q, K, V, allowed), allowed, "attention on the layer's projections")
    except StudentFault:
        return True
    return False


@memoized  # the same for every student: computed once per grading process
def deep_layer(carry, probes, d_model=12, d_k=9):
    """(params, calls, layouts) for one layer whose scores sit, row by row, at the drawn probes' depths (down to
    -9000 in some query rows, near 0 in others of the same batch: grading/space.py), with the probes' masks.
    The first feature of x_q and x_kv is carried, through W_Q and W_K alone, into the first query and key
    component, which gives each row its depth; the other features give ordinary scores around it. `carry` says
    where the size sits: "inputs" (ordinary weights, large first features) or "weights" (a large first weight,
    ordinary inputs), so that no statistic of the inputs nor of the weights alone tells these calls apart."""
    params = module_weights(19 if carry == "inputs" else 20, d_model, d_k)
    gain = 1.0 if carry == "inputs" else (space.DEPTHS[-1] ** 2 * d_k) ** 0.25  # sqrt(9000 sqrt(d_k))
    for name in ("W_Q.weight", "W_K.weight"):
        params[name][:, 0] = 0.0
        params[name][0] = 0.0
        params[name][0, 0] = gain
    calls, layouts = [], {}
    for n, probe in enumerate(probes):
        _, mask, allowed = probe.build()
        x_q, x_kv = inputs(800 + n, (probe.B, probe.T_q, d_model), (probe.B, probe.T_k, d_model))
        # first features a (queries) and c (keys) with gain^2 a c / sqrt(d_k) = the row's depth
        c = (max(abs(probe.depth), 1.0) * d_k ** 0.5) ** 0.5 / gain
        x_kv[..., 0] = c
        x_q[..., 0] = (probe.row_depths() * d_k ** 0.5 / (gain ** 2 * c)).float()
        Q, K = (x.double() @ params[name].double().T for x, name in ((x_q, "W_Q.weight"), (x_kv, "W_K.weight")))
        scores = Q @ K.transpose(-2, -1) / d_k ** 0.5
        # the handouts' range: a change here must never move these calls out of it
        assert scores.abs().max() <= space.SCORE_LIMIT, f"deep layer scores reach {scores.abs().max():g}"
        calls.append((x_q, x_kv, mask, allowed))
        if probe.child_layout():
            layouts[str(n)] = {"2": probe.child_layout()}
    return params, calls, layouts


@pytest.mark.question("SingleHeadAttention")
@pytest.mark.points(1)
@pytest.mark.tags("bias in projection")
def test_layer_parameters(student):
    """SingleHeadAttention(d_model, d_k) holds W_Q, W_K, W_V of shape (d_k, d_model) and no biases"""
    x_q, x_kv = inputs(7, (2, 3, 24), (2, 5, 24))
    params = module_weights(7, 24, 6)
    expected = {f"{n}.weight": [6, 24] for n in ("W_Q", "W_K", "W_V")}

    def parameters(reply):  # a wrong list only costs the student: judged before the values
        if reply.param_names != expected:
            raise StudentFault(f"SingleHeadAttention(24, 6) has parameters {reply.param_names}; expected {expected}: "
                               "W_Q, W_K and W_V of shape (d_k, d_model), and no biases.")

    # The parameter list is the child's own report (read after a first forward pass, so lazy layers count);
    # it is paid only together with the values it explains, and the message says which failed.
    check_layer(student, params, 24, 6, [(x_q, x_kv, None, None)], "SingleHeadAttention(24, 6)",
                before_values=parameters, paid_with=("W_Q, W_K and W_V have shape (d_k, d_model) and there are no "
                                                     "biases", "the self- and cross-attention checks of the layer"))


@pytest.mark.question("SingleHeadAttention")
@pytest.mark.points(2)
@pytest.mark.tags("wrong scale factor", "V projected with W_K", "randomness")
def test_layer_self_attention(student):
    """Self-attention (x_kv = x_q) matches the reference, scaled by 1/sqrt(d_k), on new inputs and on repeats"""
    layers = []
    for B, T, d_model, d_k in [(3, 5, 24, 6), (1, 1, 10, 5), (2, 7, 12, 9)]:
        x, x2 = inputs(9, (B, T, d_model), (B, T, d_model))
        layers.append(dict(params=module_weights(8, d_model, d_k), d_model=d_model, d_k=d_k,
                           calls=[(x, x, None, None), (x2, x2, None, None), (x, x, None, None)],
                           what=f"self-attention (d_model={d_model}, d_k={d_k})", hint="The weights are softmax(Q K^T "
                           "/ sqrt(d_k)) with d_k the projected size, and the output is weights @ W_V(x_kv).",
                           repeats=(0, 2)))
    check_layers(student, layers)


@pytest.mark.question("SingleHeadAttention")
@pytest.mark.points(2)
@pytest.mark.tags("keys from x_q")
def test_layer_cross_attention(student):
    """Cross-attention: queries from x_q, keys and values from a different x_kv (same and other lengths)"""
    params = module_weights(10, 24, 6)
    x_q, same, longer, x_q2 = inputs(11, (3, 5, 24), (3, 5, 24), (3, 7, 24), (3, 5, 24))
    check_layer(student, params, 24, 6, [(x_q, same, None, None), (x_q, longer, None, None),
                                         (x_q2, longer, None, None)],
                "cross-attention", "This check is cross-attention: Q from x_q, K and V from x_kv.")


@pytest.mark.question("SingleHeadAttention")
@pytest.mark.points(1)
@pytest.mark.tags("mask after softmax", "inverted mask", "padding mask broadcast")
def test_layer_masks(student):
    """Causal, padding, causal+padding and cross-attention masks, two of one shape in a row, on one layer"""
    params = module_weights(12, 12, 9)
    x, x2, memory = inputs(13, (3, 6, 12), (3, 6, 12), (3, 8, 12))
    causal = torch.ones(6, 6, dtype=torch.bool).tril()
    both = causal & padding([6, 4, 2], 6)
    pad = padding([8, 5, 1], 8)
    cross = random_mask(14, 3, 6, 8)
    calls = [(x, x, causal, causal), (x2, x2, both.long(), both), (x, memory, pad.float(), pad),
             (x2, memory, cross, cross), (x, memory, random_mask(15, 3, 6, 8), random_mask(15, 3, 6, 8))]
    layers = [dict(params=params, d_model=12, d_k=9, calls=calls, what="masked attention",
                   hint="Each call has its own mask (1/True = allowed).")]
    # masks met by scores far below zero in some rows and near 0 in others (grading/space.py), the depth carried
    # once by the inputs (with autograd on) and once by the weights (under torch.no_grad(), as at inference)
    probes = space.mask_draws(8, 42)
    for carry, no_grad in (("inputs", False), ("weights", True)):
        params, calls, layouts = deep_layer(carry, probes)
        layers.append(dict(params=params, d_model=12, d_k=9, calls=calls,
                           what=[f"masked attention with {p.describe()}" for p in probes],
                           hint="Here the allowed scores of some rows sit far below zero (down to -9000, within the "
                           "handout's |s| <= 10 000); the weights are still softmax(Q K^T / sqrt(d_k)) over the "
                           "allowed keys.", layouts=layouts, no_grad=no_grad))
    check_layers(student, layers)  # the three layers' probes in one round trip


@pytest.mark.question("SingleHeadAttention")
@pytest.mark.points(1)
@pytest.mark.tags("mask after softmax", "randomness")
def test_layer_training_mode(student):
    """In train() mode masked keys still weigh exactly 0; a layer without dropout answers as in eval() mode"""
    params = module_weights(16, 12, 9)
    x, memory = inputs(17, (3, 6, 12), (3, 8, 12))
    causal = torch.ones(6, 6, dtype=torch.bool).tril()
    cases = [(x, x, causal & padding([6, 4, 2], 6), causal & padding([6, 4, 2], 6), "a causal and padding mask"),
             (x, memory, random_mask(18, 3, 6, 8).long(), random_mask(18, 3, 6, 8), "a 0/1 int cross-attention mask")]
    # one layer in train() mode, each case twice in a row: the same answer twice means no dropout
    calls = [(x_q, x_kv, mask) for x_q, x_kv, mask, _, _ in cases for _ in (0, 1)]
    # in training too, masked keys weigh 0 where a row's allowed scores are all far below zero: a second layer,
    # sent in the same round trip
    probes = space.mask_draws(8, 42)
    deep_params, deep_calls, layouts = deep_layer("weights", probes)
    reply, deep = layer_runs(student, [
        run_request("SingleHeadAttention", *calls[0], init=(12, 9), params=params, train=True,
                    more=[(call, {}) for call in calls[1:]]),
        run_request("SingleHeadAttention", *deep_calls[0][:3], init=(12, 9), params=deep_params, train=True,
                    more=[(call[:3], {}) for call in deep_calls[1:]], layouts=layouts)])
    student.judging(reply)
    for n, (x_q, x_kv, mask, allowed, kind) in enumerate(cases):
        what = f"SingleHeadAttention in train() mode with {kind}"
        with charged_as_attentions(student, params, (x_q, x_kv, mask, allowed), reply.outputs[2 * n]):
            answers = [pair(got, what) for got in reply.outputs[2 * n:2 * n + 2]]
            for output, weights in answers:
                weights = expect.shape(weights, tuple(allowed.shape), f"the weights of {what}")
                expect.masked_are_zero(weights, allowed, what, MASK_HINT)
                expect.shape(output, (3, 6, 9), f"the output of {what}")
                if not (torch.isfinite(output).all() and torch.isfinite(weights).all() and (weights >= 0).all()):
                    raise StudentFault(f"{what} gives weights or outputs that are negative, NaN or infinite.")
        deterministic = all(torch.equal(a.double(), b.double()) for a, b in zip(*answers))
        if deterministic:  # no dropout: training must not change what the layer computes
            reference = reference_layer(params, x_q, x_kv, allowed)
            try:
                check_attention_reply(answers[0], reference, allowed, what,
                                      "Without dropout a layer computes the same in train() and eval() mode.")
            except StudentFault as fault:
                if right_in_eval_mode(student, params, (x_q, x_kv, mask), reference, allowed):
                    fault.diagnoses = (*fault.diagnoses, structural.train_mode_differs(what))
                elif attention_explains(student, params, (x_q, x_kv, mask, allowed), answers[0]):
                    raise attention_charged(fault) from None
                raise
    for probe, call, got in zip(probes, deep_calls, student.judging(deep).outputs):
        what = f"SingleHeadAttention in train() mode with {probe.describe()}"
        with charged_as_attentions(student, deep_params, call, got):
            _, weights = pair(got, what)
            weights = expect.shape(weights, tuple(call[3].shape), f"the weights of {what}")
            expect.masked_are_zero(weights, call[3], what, MASK_HINT)


def right_in_eval_mode(student, params, args, reference, allowed) -> bool:
    """Whether the same layer, weights and inputs give the reference's answer in eval() mode (asked only after
    a failure in train() mode, so that "it differs in training" is named only where it is proven)."""
    try:
        check_attention_reply(student.run("SingleHeadAttention", *args, init=(12, 9), params=params).output,
                              reference, allowed, "SingleHeadAttention in eval() mode")
    except StudentFault:
        return False
    return True


@pytest.mark.question("SingleHeadAttention")
@pytest.mark.points(1)
@pytest.mark.tags("graph cut")
def test_layer_gradients(student):
    """Gradients reach x_q, x_kv, W_Q, W_K and W_V, and each equals the reference's"""
    params = module_weights(14, 8, 5)
    x_q, x_kv, seed = inputs(15, (2, 3, 8), (2, 5, 8), (2, 3, 5))
    (reply,) = layer_runs(student, [run_request("SingleHeadAttention", x_q, x_kv, init=(8, 5), params=params,
                                                grad_args=(0, 1), backward={"index": 0, "grad": seed})])
    student.judging(reply)
    grads = [("x_q", reply.arg_grads.get("0")), ("x_kv", reply.arg_grads.get("1"))]
    grads += [(f"self.{n}", reply.param_grads.get(n)) for n in params]
    for name, grad in grads:
        expect.grad_present(grad, name)
    references = tol.layer_backward(x_q, x_kv, *params.values(), seed)
    try:
        for (name, grad), reference in zip(grads, references):
            expect.gradient_within(grad, reference, f"the gradient with respect to {name}", "This check compares each "
                          "gradient with the reference layer's (project, score, scale by 1/sqrt(d_k), softmax, mix).")
    except StudentFault as fault:
        if attention_explains(student, params, (x_q, x_kv, None, None), reply.output) and \
                attention_gradients_explain(student, params, x_q, x_kv, seed, [g for _, g in grads]):
            raise attention_charged(fault) from None
        raise


def attention_gradients_explain(student, params, x_q, x_kv, seed, grads) -> bool:
    """Whether the layer's gradients are those of the student's own `attention` on the layer's projections, carried
    back through the projections (x_q: dQ W_Q; x_kv: dK W_K + dV W_V; W_Q: sum of dQ^T x_q; ...)."""
    W = {n: params[f"W_{n}.weight"].double() for n in "QKV"}
    Q, K, V = (tol.linear(x, params[f"W_{n}.weight"])[0].float() for n, x in (("Q", x_q), ("K", x_kv), ("V", x_kv)))
    try:
        reply = student.run("attention", Q, K, V, grad_args=(0, 1, 2), backward={"index": 0, "grad": seed},
                            inputs_may_change=True, record=False)
        dQ, dK, dV = (expect.as_tensor(reply.arg_grads.get(str(i)), "a gradient").double() for i in range(3))
    except StudentFault:
        return False
    xq, xkv = x_q.double(), x_kv.double()
    carried = [dQ @ W["Q"], dK @ W["K"] + dV @ W["V"], torch.einsum("btk,btm->km", dQ, xq),
               torch.einsum("btk,btm->km", dK, xkv), torch.einsum("btk,btm->km", dV, xkv)]
    return agree(list(grads), carried).same


def attention_charged(fault) -> ExplainedElsewhere:
    return ExplainedElsewhere(f"{fault} Your layer gives exactly what your own attention gives on the layer's "
                              "projections Q, K and V, and that attention is wrong there.", questions=("attention",))


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
