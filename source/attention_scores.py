# %% [markdown]
# # Attention Score: how a query is compared with a key
#
# *Lesson: "Attention Score" (Module 10.1).* The attention pipeline is **project → score → softmax → mix**.
# This assignment zooms into the middle step: the **attention score** $e_{ij} = \mathrm{score}(q_i, k_j)$, an
# *unnormalised* compatibility between query $i$ and key $j$. Scores are free real numbers; only after masking
# and a softmax over the keys do they become attention weights $\alpha_{ij}$ that sum to one.
#
# Conventions used everywhere below (and by the grader):
# - `Q` has shape `(B, T_q, d_q)`, `K` has shape `(B, T_k, d_k)`; a score matrix has shape `(B, T_q, T_k)`.
# - A **mask** is 1/`True` where a key is **allowed** and 0/`False` where it is **forbidden**.
#   (PyTorch's `nn.MultiheadAttention` uses the opposite polarity; this course follows the lesson.)
# - Softmax runs over the **keys**, the last dimension.
#
# Fill in every `raise NotImplementedError(...)` line, then run the check cell under it. A failed check tells
# you, in the lesson's terms, what is likely wrong.

# %% role="setup"
import math

import torch
from torch import nn
import torch.nn.functional as F

# %% role="hidden-setup"
import math

import pytest
import torch

from autograder.grading import expect
from autograder.grading.student import StudentFault, randn, seeded_inputs as inputs

pytestmark = pytest.mark.assignment("attention_scores")

# (B, T_q, T_k, d): T_q != T_k != d exposes swapped axes; B=1/T_q=1 exposes squeeze(); a square case
# exposes a missing transpose; two different d_k expose a hard-coded scale.
SHAPES = [(3, 5, 7, 6), (1, 1, 4, 8), (2, 6, 6, 6), (2, 3, 9, 16)]

# %% [markdown] exercise="dot_scores"
# ## 1. Dot-product score
#
# The simplest score compares query and key with a dot product:
#
# $$e_{ij} = q_i \cdot k_j \qquad\Longleftrightarrow\qquad E = Q K^\top \;\;\text{(per batch item)}$$
#
# One matrix multiplication gives every pair at once. Mind the transpose: `K.T` on a 3-D tensor reverses
# *all* dimensions; transpose only the last two.

# %% exercise="dot_scores" role="solution"
def dot_scores(Q, K):
    """Dot-product attention scores e_ij = q_i . k_j.

    Q: (B, T_q, d)  queries
    K: (B, T_k, d)  keys (same feature size d as the queries)
    returns: (B, T_q, T_k) scores, one row per query, one column per key.
    """
    # BEGIN SOLUTION
    return Q @ K.transpose(-2, -1)
    # END SOLUTION

# %% exercise="dot_scores" role="public"
@test_case(points=None, hidden=False)
def test_dot_scores_shape(dot_scores):
    import torch
    Q, K = torch.randn(2, 3, 4), torch.randn(2, 5, 4)
    scores = dot_scores(Q, K)
    assert isinstance(scores, torch.Tensor), "dot_scores should return a tensor"
    assert tuple(scores.shape) == (2, 3, 5), (
        f"scores have shape {tuple(scores.shape)}; expected (B, T_q, T_k) = (2, 3, 5). "
        "Compare every query with every key: Q @ K.transpose(-2, -1).")


@test_case(points=None, hidden=False)
def test_dot_scores_values(dot_scores):
    import torch
    Q = torch.tensor([[[1.0, 0.0], [0.0, 2.0]]])
    K = torch.tensor([[[1.0, 1.0], [3.0, -1.0], [0.0, 0.5]]])
    expected = torch.tensor([[[1.0, 3.0, 0.0], [2.0, -2.0, 1.0]]])
    assert torch.allclose(dot_scores(Q, K), expected), (
        "e_ij should be the dot product q_i . k_j (row i = query, column j = key), unscaled. "
        "Did you compute K @ Q^T, or divide by something?")

# %% exercise="dot_scores" role="hidden"
@pytest.mark.question("dot_scores")
@pytest.mark.points(1)
@pytest.mark.tags("wrong transpose")
def test_dot_scores_shape(student):
    """dot_scores returns one score per (query, key) pair: shape (B, T_q, T_k)"""
    for B, T_q, T_k, d in SHAPES:
        Q, K = inputs(1, (B, T_q, d), (B, T_k, d))
        expect.shape(student.call("dot_scores", Q, K), (B, T_q, T_k), "dot_scores(Q, K)",
                     "Scores are (B, T_q, T_k): use Q @ K.transpose(-2, -1); `.T` on a 3-D tensor reverses "
                     "all dims and squeeze() without a dim drops B=1 or T_q=1.")


@pytest.mark.question("dot_scores")
@pytest.mark.points(2)
@pytest.mark.tags("wrong transpose", "unwanted scaling")
def test_dot_scores_values(student, ref_scores):
    """dot_scores matches q_i . k_j at several shapes and leaves its inputs unchanged"""
    for B, T_q, T_k, d in SHAPES:
        Q, K = inputs(2, (B, T_q, d), (B, T_k, d))
        reply = student.run("dot_scores", Q, K, check_inputs=True)
        expect.close(reply.output, ref_scores.dot_scores(Q.double(), K.double()), f"dot_scores at B={B}, "
                     f"T_q={T_q}, T_k={T_k}, d={d}", "e_ij = q_i . k_j with no scaling; row i is a query, column j "
                     "a key (Q @ K^T, not K @ Q^T).")
        if any(reply.inputs_changed):
            raise StudentFault("dot_scores changed Q or K in place; a score function must not modify its inputs.")


def check_score_gradients(student, name, scale):
    Q, K, seed = inputs(30, (2, 3, 4), (2, 5, 4), (2, 3, 5))
    reply = student.run(name, Q, K, grad_args=(0, 1), backward={"grad": seed})
    for index, what in ((0, "Q"), (1, "K")):
        expect.grad_present(reply.arg_grads.get(str(index)), f"{what} through {name}",
                            "Avoid .detach(), torch.no_grad(), .data and NumPy round trips.")
    expect.close(reply.arg_grads["0"], seed.double() @ K.double() * scale, f"the gradient of {name} w.r.t. Q")


@pytest.mark.question("dot_scores")
@pytest.mark.points(1)
@pytest.mark.tags("graph cut")
def test_dot_scores_gradients(student):
    """Gradients flow from the dot-product scores back to Q and K"""
    check_score_gradients(student, "dot_scores", 1.0)

# %% [markdown] exercise="scaled_dot_scores"
# ## 2. Scaled dot-product score
#
# If the components of $q$ and $k$ have variance about 1, then $q\cdot k$ has variance about $d_k$: scores grow
# with the dimension. The Transformer divides by $\sqrt{d_k}$ to keep them in a range where softmax still has
# useful gradients:
#
# $$e_{ij} = \frac{q_i \cdot k_j}{\sqrt{d_k}}$$
#
# $d_k$ is the size of the key vectors, `K.shape[-1]`; read it from the tensor, never hard-code it.

# %% exercise="scaled_dot_scores" role="solution"
def scaled_dot_scores(Q, K):
    """Scaled dot-product scores e_ij = q_i . k_j / sqrt(d_k).

    Q: (B, T_q, d_k)  queries
    K: (B, T_k, d_k)  keys
    returns: (B, T_q, T_k)
    """
    # BEGIN SOLUTION
    d_k = K.shape[-1]
    return Q @ K.transpose(-2, -1) / math.sqrt(d_k)
    # END SOLUTION

# %% exercise="scaled_dot_scores" role="public"
@test_case(points=None, hidden=False)
def test_scaled_dot_scores_scale(scaled_dot_scores):
    import torch
    Q, K = torch.ones(1, 1, 16), torch.ones(1, 2, 16)
    scores = scaled_dot_scores(Q, K)
    assert tuple(scores.shape) == (1, 1, 2), f"expected shape (B, T_q, T_k) = (1, 1, 2), got {tuple(scores.shape)}"
    assert torch.allclose(scores, torch.full((1, 1, 2), 4.0)), (
        f"with d_k = 16 and all-ones vectors, q.k = 16 and 16 / sqrt(16) = 4, but you returned {scores.flatten().tolist()}. "
        "Divide by sqrt(d_k) (not by d_k, sqrt(T_k) or a fixed number).")

# %% exercise="scaled_dot_scores" role="hidden"
@pytest.mark.question("scaled_dot_scores")
@pytest.mark.points(1)
@pytest.mark.tags("wrong transpose")
def test_scaled_dot_scores_shape(student):
    """scaled_dot_scores returns shape (B, T_q, T_k)"""
    for B, T_q, T_k, d in SHAPES:
        Q, K = inputs(3, (B, T_q, d), (B, T_k, d))
        expect.shape(student.call("scaled_dot_scores", Q, K), (B, T_q, T_k), "scaled_dot_scores(Q, K)",
                     "Scores are (B, T_q, T_k): Q @ K.transpose(-2, -1), then scale.")


@pytest.mark.question("scaled_dot_scores")
@pytest.mark.points(2)
@pytest.mark.tags("wrong scale factor")
def test_scaled_dot_scores_values(student, ref_scores):
    """scaled_dot_scores divides q_i . k_j by sqrt(d_k) for several d_k"""
    for B, T_q, T_k, d in SHAPES:
        Q, K = inputs(4, (B, T_q, d), (B, T_k, d))
        expect.close(student.call("scaled_dot_scores", Q, K), ref_scores.scaled_dot_scores(Q.double(), K.double()),
                     f"scaled_dot_scores at d_k={d}", "Divide the dot products by sqrt(d_k) with d_k = K.shape[-1]: "
                     "not by d_k, not by sqrt(T_k), not by a hard-coded sqrt(64), and divide rather than multiply.")


@pytest.mark.question("scaled_dot_scores")
@pytest.mark.points(1)
@pytest.mark.tags("graph cut")
def test_scaled_dot_scores_gradients(student):
    """Gradients flow from the scaled scores back to Q and K"""
    check_score_gradients(student, "scaled_dot_scores", 0.5)  # d_k = 4

# %% [markdown] exercise="GeneralScore"
# ## 3. Multiplicative ("Luong general") score
#
# Luong's *general* score puts a learned bilinear map between query and key, so they may even have different
# sizes $d_q$ and $d_k$:
#
# $$e_{ij} = q_i^\top W k_j, \qquad W \in \mathbb{R}^{d_q \times d_k}$$
#
# Store $W$ as `self.W = nn.Linear(d_k, d_q, bias=False)`: then `self.W(K)` computes $W k_j$ for every key
# (shape `(B, T_k, d_q)`), and `self.W.weight` is exactly $W$ with shape `(d_q, d_k)`. With $W = I$ this is the
# plain dot-product score.

# %% exercise="GeneralScore" role="solution"
class GeneralScore(nn.Module):
    """Luong "general" score e_ij = q_i^T W k_j with W = self.W.weight of shape (d_q, d_k)."""

    def __init__(self, d_q, d_k):
        super().__init__()
        # BEGIN SOLUTION
        self.W = nn.Linear(d_k, d_q, bias=False)
        # END SOLUTION

    def forward(self, Q, K):
        """Q: (B, T_q, d_q), K: (B, T_k, d_k) -> scores (B, T_q, T_k)."""
        # BEGIN SOLUTION
        return Q @ self.W(K).transpose(-2, -1)
        # END SOLUTION

# %% exercise="GeneralScore" role="public"
@test_case(points=None, hidden=False)
def test_general_score(GeneralScore):
    import torch
    score = GeneralScore(3, 2)
    assert hasattr(score, "W") and tuple(score.W.weight.shape) == (3, 2), (
        "self.W should be nn.Linear(d_k, d_q, bias=False), so that self.W.weight is W with shape (d_q, d_k)")
    assert score.W.bias is None, "the general score has no bias: use bias=False"
    with torch.no_grad():
        score.W.weight.copy_(torch.tensor([[1.0, 0.0], [0.0, 0.0], [0.0, 2.0]]))
    Q = torch.tensor([[[1.0, 1.0, 1.0]]])
    K = torch.tensor([[[1.0, 0.0], [0.0, 1.0]]])
    scores = score(Q, K)
    assert tuple(scores.shape) == (1, 1, 2), f"expected (B, T_q, T_k) = (1, 1, 2), got {tuple(scores.shape)}"
    assert torch.allclose(scores, torch.tensor([[[1.0, 2.0]]])), (
        "e_ij = q_i^T W k_j: map each key with W (self.W(K)) and dot it with the query. "
        "Using W^T, or applying W to the queries, gives other numbers.")

# %% exercise="GeneralScore" role="hidden"
@pytest.mark.question("GeneralScore")
@pytest.mark.points(1)
@pytest.mark.tags("bias in score", "W vs W transposed")
def test_general_score_parameters(student):
    """GeneralScore(d_q, d_k) holds exactly W = self.W.weight of shape (d_q, d_k), with no bias"""
    Q, K, W = inputs(5, (1, 1, 5), (1, 2, 3), (5, 3))
    reply = student.run("GeneralScore", Q, K, init=(5, 3), params={"W.weight": W})
    if reply.param_names != {"W.weight": [5, 3]}:
        raise StudentFault(f"GeneralScore(5, 3) has parameters {reply.param_names}; expected only W.weight of shape "
                           "(d_q, d_k) = (5, 3): self.W = nn.Linear(d_k, d_q, bias=False).")
    # The parameter list is the child's own report; pay for it only together with a value it explains.
    expect.close(reply.output, Q.double() @ W.double() @ K.double().transpose(-2, -1), "GeneralScore(5, 3) scores")


@pytest.mark.question("GeneralScore")
@pytest.mark.points(2)
@pytest.mark.tags("W vs W transposed", "wrong transpose")
def test_general_score_values(student, ref_scores):
    """GeneralScore computes q_i^T W k_j, also with a non-square W and with W = I"""
    for B, T_q, T_k, d_q, d_k in [(3, 5, 7, 6, 4), (2, 4, 4, 5, 5), (1, 1, 3, 2, 7)]:
        Q, K, W = inputs(6, (B, T_q, d_q), (B, T_k, d_k), (d_q, d_k))
        reply = student.run("GeneralScore", Q, K, init=(d_q, d_k), params={"W.weight": W})
        want = Q.double() @ W.double() @ K.double().transpose(-2, -1)
        expect.close(reply.output, want, f"GeneralScore({d_q}, {d_k}) scores",
                     "e_ij = q_i^T W k_j with W = self.W.weight of shape (d_q, d_k): compute Q @ self.W(K)^T. "
                     "Using W^T or applying self.W to Q gives wrong values.")
    Q, K = inputs(7, (2, 3, 4), (2, 5, 4))
    reply = student.run("GeneralScore", Q, K, init=(4, 4), params={"W.weight": torch.eye(4)})
    expect.close(reply.output, ref_scores.dot_scores(Q.double(), K.double()), "GeneralScore with W = I",
                 "With W = I the general score must equal the plain dot-product score.")


@pytest.mark.question("GeneralScore")
@pytest.mark.points(1)
@pytest.mark.tags("graph cut")
def test_general_score_gradients(student):
    """Gradients flow from the scores to Q, K and W"""
    Q, K, W, seed = inputs(8, (2, 3, 4), (2, 5, 6), (4, 6), (2, 3, 5))
    reply = student.run("GeneralScore", Q, K, init=(4, 6), params={"W.weight": W}, grad_args=(0, 1),
                        backward={"grad": seed})
    for name, grad in [("Q", reply.arg_grads.get("0")), ("K", reply.arg_grads.get("1")),
                       ("self.W.weight", reply.param_grads.get("W.weight"))]:
        expect.grad_present(grad, name, "Avoid .detach(), torch.no_grad(), .data and NumPy round trips.")
    want = seed.double() @ (K.double() @ W.double().T)
    expect.close(reply.arg_grads["0"], want, "the gradient with respect to Q")

# %% [markdown] exercise="AdditiveScore"
# ## 4. Additive ("Bahdanau") score
#
# Bahdanau's score is a small one-hidden-layer MLP applied to every (query, key) pair:
#
# $$e_{ij} = v^\top \tanh\left(W_q q_i + W_k k_j\right)$$
#
# Project queries to `(B, T_q, 1, d_h)` and keys to `(B, 1, T_k, d_h)`; broadcasting the sum gives
# `(B, T_q, T_k, d_h)`, and `self.v` maps the last dimension to one number. Remove that last dimension with
# `squeeze(-1)`, never a bare `squeeze()` (it would also drop `B = 1` or `T_q = 1`). No biases.

# %% exercise="AdditiveScore" role="solution"
class AdditiveScore(nn.Module):
    """Bahdanau additive score e_ij = v^T tanh(W_q q_i + W_k k_j)."""

    def __init__(self, d_q, d_k, d_h):
        super().__init__()
        # BEGIN SOLUTION
        self.W_q = nn.Linear(d_q, d_h, bias=False)
        self.W_k = nn.Linear(d_k, d_h, bias=False)
        self.v = nn.Linear(d_h, 1, bias=False)
        # END SOLUTION

    def forward(self, Q, K):
        """Q: (B, T_q, d_q), K: (B, T_k, d_k) -> scores (B, T_q, T_k)."""
        # BEGIN SOLUTION
        q = self.W_q(Q).unsqueeze(2)  # (B, T_q, 1, d_h)
        k = self.W_k(K).unsqueeze(1)  # (B, 1, T_k, d_h)
        return self.v(torch.tanh(q + k)).squeeze(-1)
        # END SOLUTION

# %% exercise="AdditiveScore" role="public"
@test_case(points=None, hidden=False)
def test_additive_score(AdditiveScore):
    import torch
    score = AdditiveScore(3, 2, 4)
    for name, shape in [("W_q", (4, 3)), ("W_k", (4, 2)), ("v", (1, 4))]:
        layer = getattr(score, name, None)
        assert layer is not None and tuple(layer.weight.shape) == shape, (
            f"self.{name} should be an nn.Linear whose weight has shape {shape}")
        assert layer.bias is None, f"self.{name} should have no bias (bias=False)"
    scores = score(torch.randn(1, 1, 3), torch.randn(1, 5, 2))
    assert tuple(scores.shape) == (1, 1, 5), (
        f"expected (B, T_q, T_k) = (1, 1, 5), got {tuple(scores.shape)}: use squeeze(-1), not squeeze()")
    with torch.no_grad():
        for layer in (score.W_q, score.W_k, score.v):
            layer.weight.fill_(1.0)
    value = score(torch.ones(1, 1, 3), torch.ones(1, 1, 2)).item()
    expected = 4 * torch.tanh(torch.tensor(5.0)).item()
    assert abs(value - expected) < 1e-5, (
        f"with all weights 1 the score is v^T tanh(W_q q + W_k k) = 4 tanh(5) = {expected:.4f}, got {value:.4f}. "
        "Is the tanh there, applied to the sum of the two projections?")

# %% exercise="AdditiveScore" role="hidden"
@pytest.mark.question("AdditiveScore")
@pytest.mark.points(1)
@pytest.mark.tags("bias in score")
def test_additive_score_parameters(student):
    """AdditiveScore(d_q, d_k, d_h) holds W_q, W_k and v without biases"""
    Q, K, Wq, Wk, v = inputs(9, (1, 2, 5), (1, 3, 3), (4, 5), (4, 3), (1, 4))
    reply = student.run("AdditiveScore", Q, K, init=(5, 3, 4),
                        params={"W_q.weight": Wq, "W_k.weight": Wk, "v.weight": v})
    expected = {"W_q.weight": [4, 5], "W_k.weight": [4, 3], "v.weight": [1, 4]}
    if reply.param_names != expected:
        raise StudentFault(f"AdditiveScore(5, 3, 4) has parameters {reply.param_names}; expected {expected} "
                           "(nn.Linear(d_q, d_h), nn.Linear(d_k, d_h), nn.Linear(d_h, 1), all with bias=False).")
    q, k = (Q.double() @ Wq.double().T).unsqueeze(2), (K.double() @ Wk.double().T).unsqueeze(1)
    expect.close(reply.output, (torch.tanh(q + k) @ v.double().T).squeeze(-1), "AdditiveScore(5, 3, 4) scores")


@pytest.mark.question("AdditiveScore")
@pytest.mark.points(2)
@pytest.mark.tags("missing tanh", "swapped axes", "squeeze without dim")
def test_additive_score_values(student, ref_scores):
    """AdditiveScore computes v^T tanh(W_q q_i + W_k k_j) for every pair"""
    for B, T_q, T_k, d_q, d_k, d_h in [(3, 5, 7, 6, 4, 8), (1, 1, 4, 3, 3, 5), (2, 4, 4, 5, 2, 3)]:
        Q, K, Wq, Wk, v = inputs(10, (B, T_q, d_q), (B, T_k, d_k), (d_h, d_q), (d_h, d_k), (1, d_h))
        Wq, Wk = Wq * 0.7, Wk * 0.7  # keep tanh away from saturation so a missing tanh shows
        reply = student.run("AdditiveScore", Q, K, init=(d_q, d_k, d_h),
                            params={"W_q.weight": Wq, "W_k.weight": Wk, "v.weight": v})
        q = (Q.double() @ Wq.double().T).unsqueeze(2)
        k = (K.double() @ Wk.double().T).unsqueeze(1)
        want = (torch.tanh(q + k) @ v.double().T).squeeze(-1)
        expect.close(reply.output, want, f"AdditiveScore at B={B}, T_q={T_q}, T_k={T_k}",
                     "e_ij = v^T tanh(W_q q_i + W_k k_j): queries as (B, T_q, 1, d_h), keys as (B, 1, T_k, d_h), "
                     "tanh of the sum, then v, then squeeze(-1).")


@pytest.mark.question("AdditiveScore")
@pytest.mark.points(1)
@pytest.mark.tags("graph cut")
def test_additive_score_gradients(student):
    """Gradients flow from the scores to Q, K, W_q, W_k and v"""
    Q, K, seed = inputs(11, (2, 3, 4), (2, 5, 6), (2, 3, 5))
    reply = student.run("AdditiveScore", Q, K, init=(4, 6, 3), grad_args=(0, 1), backward={"grad": seed})
    grads = [("Q", reply.arg_grads.get("0")), ("K", reply.arg_grads.get("1"))]
    grads += [(f"self.{n}", reply.param_grads.get(n)) for n in ("W_q.weight", "W_k.weight", "v.weight")]
    for name, grad in grads:
        expect.grad_present(grad, name, "Avoid .detach(), torch.no_grad(), .data and NumPy round trips.")

# %% [markdown] exercise="apply_mask"
# ## 5. Masks are score surgery
#
# A forbidden key (padding, or a future token) must get **zero** weight. Edit the *scores*, before softmax:
#
# $$\tilde e_{ij} = \begin{cases} e_{ij} & \text{mask}_{ij} = 1 \\ -\infty & \text{mask}_{ij} = 0\end{cases}
# \qquad\Longrightarrow\qquad \alpha_{ij} = \frac{e^{\tilde e_{ij}}}{\sum_{j'} e^{\tilde e_{ij'}}} = 0 \text{ where masked}$$
#
# `mask` may be bool or 0/1 (int or float) and any shape that broadcasts to the scores, e.g. `(B, 1, T_k)`.
# Return a **new** tensor: `masked_fill` (not `masked_fill_`) leaves the input alone. Multiplying scores by
# the mask does not work: a score of 0 still gets weight.

# %% exercise="apply_mask" role="solution"
def apply_mask(scores, mask):
    """Scores where mask is 1/True, -inf where mask is 0/False.

    scores: (B, T_q, T_k)
    mask:   bool or 0/1 tensor broadcastable to scores; 1/True = allowed, 0/False = forbidden
    returns: a new tensor shaped like scores; the input is not modified.
    """
    # BEGIN SOLUTION
    return scores.masked_fill(mask == 0, float("-inf"))
    # END SOLUTION

# %% exercise="apply_mask" role="public"
@test_case(points=None, hidden=False)
def test_apply_mask(apply_mask):
    import torch
    scores = torch.tensor([[[1.0, 2.0, 3.0]]])
    before = scores.clone()
    masked = apply_mask(scores, torch.tensor([[[1, 0, 1]]]))
    assert torch.equal(scores, before), "apply_mask changed its input: use masked_fill, not masked_fill_"
    assert masked[0, 0, 1] == float("-inf"), (
        f"a forbidden key (mask 0) should get score -inf, got {masked[0, 0, 1].item()}. "
        "Mask value 0 = forbidden; do not multiply the scores by the mask.")
    assert masked[0, 0, 0] == 1.0 and masked[0, 0, 2] == 3.0, "allowed keys (mask 1) keep their scores"

# %% exercise="apply_mask" role="hidden"
@pytest.mark.question("apply_mask")
@pytest.mark.points(2)
@pytest.mark.tags("inverted mask", "mask multiplied into scores", "small fill value")
def test_apply_mask_values(student):
    """apply_mask keeps allowed scores and sends forbidden ones to -inf, for bool, int and float masks"""
    (scores,) = inputs(12, (3, 4, 6))
    allowed = torch.rand(3, 4, 6, generator=torch.Generator().manual_seed(13)) > 0.4
    allowed[..., 0] = True
    for mask, kind in [(allowed, "bool"), (allowed.long(), "0/1 int"), (allowed.float(), "0/1 float")]:
        got = expect.shape(student.call("apply_mask", scores, mask), (3, 4, 6), f"apply_mask with a {kind} mask")
        if not torch.equal(got[allowed], scores[allowed]):
            raise StudentFault(f"apply_mask with a {kind} mask changed allowed scores (mask 1/True must keep the "
                               "score). Is the mask inverted, or multiplied into the scores?")
        if not (got[~allowed] <= -1e9).all():
            raise StudentFault(f"apply_mask with a {kind} mask left forbidden scores at "
                               f"{got[~allowed].max().item():.3g}; they must be -inf (mask 0/False = forbidden, "
                               "fill with float('-inf'); -10 or 1e-9 still leaves weight after softmax).")


@pytest.mark.question("apply_mask")
@pytest.mark.points(1)
@pytest.mark.tags("in-place mask", "padding mask broadcast", "graph cut")
def test_apply_mask_broadcast_and_inputs(student):
    """apply_mask broadcasts a (B, 1, T_k) mask, keeps the graph and does not modify its inputs"""
    (scores,) = inputs(14, (2, 3, 5))
    mask = torch.tensor([[[1, 1, 1, 0, 0]], [[1, 1, 1, 1, 0]]], dtype=torch.bool)
    reply = student.run("apply_mask", scores, mask, check_inputs=True)
    got = expect.shape(reply.output, (2, 3, 5), "apply_mask with a (B, 1, T_k) mask",
                       "The mask broadcasts over the queries.")
    full = mask.expand(2, 3, 5)
    if not (torch.equal(got[full], scores[full]) and (got[~full] <= -1e9).all()):
        raise StudentFault("a (B, 1, T_k) padding mask must hide the same keys for every query.")
    if any(reply.inputs_changed):
        raise StudentFault("apply_mask modified the scores passed in: use masked_fill (returns a new tensor), "
                           "not masked_fill_ or item assignment.")
    (seed,) = inputs(15, (2, 3, 5))
    reply = student.run("apply_mask", scores, mask, grad_args=(0,), backward={"grad": seed})
    grad = expect.grad_present(reply.arg_grads.get("0"), "the scores through apply_mask",
                               "Masking must stay in the graph: no .detach(), .data or NumPy round trips.")
    expect.close(grad, seed.double() * full, "the gradient through apply_mask",
                 "Allowed scores pass their gradient through unchanged; masked ones get none.")

# %% [markdown] exercise="attention_weights"
# ## 6. From scores to weights
#
# Softmax runs **row-wise over the keys** (the last dimension), so each query gets a distribution:
#
# $$\alpha_{ij} = \mathrm{softmax}_j(\tilde e_{ij}) = \frac{\exp(\tilde e_{ij})}{\sum_{j'}\exp(\tilde e_{ij'})},
# \qquad \sum_j \alpha_{ij} = 1$$
#
# Mask **before** the softmax (use your `apply_mask`). Zeroing weights after the softmax breaks the sum to one.
# `F.softmax(x)` without `dim` picks the wrong axis; always pass `dim=-1`.

# %% exercise="attention_weights" role="solution"
def attention_weights(scores, mask=None):
    """Mask (if given), then softmax over the keys.

    scores: (B, T_q, T_k)
    mask:   None, or bool / 0-1 tensor broadcastable to scores (1/True = allowed)
    returns: (B, T_q, T_k) weights; each row sums to 1 and masked keys get 0.
    """
    # BEGIN SOLUTION
    if mask is not None:
        scores = apply_mask(scores, mask)
    return F.softmax(scores, dim=-1)
    # END SOLUTION

# %% exercise="attention_weights" role="public"
@test_case(points=None, hidden=False)
def test_attention_weights(attention_weights):
    import torch
    scores = torch.randn(2, 3, 4)
    weights = attention_weights(scores)
    assert tuple(weights.shape) == (2, 3, 4), f"weights should keep the scores' shape, got {tuple(weights.shape)}"
    assert torch.allclose(weights.sum(-1), torch.ones(2, 3), atol=1e-5), (
        "each query's weights must sum to 1 over the keys: softmax over dim=-1")
    mask = torch.tensor([1, 1, 0, 1])
    weights = attention_weights(torch.tensor([[[0.0, 0.0, 50.0, 0.0]]]), mask)
    assert weights[0, 0, 2] < 1e-6, "a masked key must get weight 0, even with a huge score: mask before softmax"
    assert torch.allclose(weights.sum(-1), torch.ones(1, 1)), (
        "rows must still sum to 1 under a mask: mask the scores before softmax instead of zeroing weights after")

# %% exercise="attention_weights" role="hidden"
@pytest.mark.question("attention_weights")
@pytest.mark.points(1)
@pytest.mark.tags("softmax over wrong dim")
def test_attention_weights_softmax(student, ref_scores):
    """attention_weights is a softmax over the keys (last dim): rows sum to 1"""
    for B, T_q, T_k, _ in SHAPES:
        (scores,) = inputs(15, (B, T_q, T_k))
        got = expect.close(student.call("attention_weights", scores),
                           ref_scores.attention_weights(scores.double()), f"attention_weights at B={B}, T_q={T_q}, "
                           f"T_k={T_k}", "Softmax over the keys: F.softmax(scores, dim=-1).", rtol=1e-5, atol=1e-6)
        expect.rows_sum_to_one(got, "attention_weights", "Normalise over the last dimension (the keys).")


@pytest.mark.question("attention_weights")
@pytest.mark.points(1)
@pytest.mark.tags("mask after softmax", "inverted mask", "small fill value")
def test_attention_weights_mask(student, ref_scores):
    """With a bool, 0/1 int or 0/1 float mask, forbidden keys get weight <= 1e-6 and rows still sum to 1"""
    (scores,) = inputs(16, (2, 4, 6))
    allowed = torch.tensor([[1, 1, 1, 0, 1, 0]] * 4 + [[1, 0, 0, 1, 1, 1]] * 4).reshape(2, 4, 6).bool()
    # Forbidden keys carry the largest scores; 1000 overflows exp(), so zeroing and renormalising after
    # the softmax shows up as NaN instead of slipping through.
    for huge in (30.0, 1000.0):
        hot = scores.masked_fill(~allowed, huge)
        for mask, kind in ((allowed, "bool"), (allowed.long(), "0/1 int"), (allowed.float(), "0/1 float")):
            what = f"attention_weights with a {kind} mask (forbidden scores {huge:g})"
            reply = student.run("attention_weights", hot, mask, check_inputs=True)
            got = expect.shape(reply.output, (2, 4, 6), what)
            expect.masked_are_zero(got, allowed, what, "Mask the scores with -inf before softmax "
                                   "(mask 1/True = allowed, 0/False = forbidden, for bool and 0/1 masks alike).")
            expect.rows_sum_to_one(got, what, "Mask before softmax; do not zero weights afterwards.")
            expect.close(got, ref_scores.attention_weights(hot.double(), allowed), what, rtol=1e-5, atol=1e-6)
            if any(reply.inputs_changed):
                raise StudentFault(f"{what} modified the scores passed in: mask with masked_fill (a new tensor), "
                                   "not masked_fill_.")


@pytest.mark.question("attention_weights")
@pytest.mark.points(1)
@pytest.mark.tags("unstable softmax")
def test_attention_weights_large_scores(student):
    """Large scores such as [1000, 999, 0] give finite, correct weights"""
    scores = torch.tensor([[[1000.0, 999.0, 0.0], [-1000.0, 0.0, 1000.0]]])
    want = torch.softmax(scores.double(), dim=-1)
    expect.close(student.call("attention_weights", scores), want, "attention_weights of [1000, 999, 0]",
                 "exp(1000) overflows: subtract the row maximum first, or use F.softmax.", rtol=1e-5, atol=1e-6)

# %% [markdown] exercise="causal_mask"
# ## 7. Causal mask
#
# In decoder self-attention, query $i$ may look at keys $j \le i$ only: no future leakage.
#
# $$\text{mask}_{ij} = [\, j \le i \,]$$
#
# Return a bool `(T, T)` tensor, `True` on and below the diagonal (`torch.tril`).

# %% exercise="causal_mask" role="solution"
def causal_mask(T):
    """Bool (T, T) mask, True where key j <= query i (allowed), False for future keys."""
    # BEGIN SOLUTION
    return torch.tril(torch.ones(T, T, dtype=torch.bool))
    # END SOLUTION

# %% exercise="causal_mask" role="public"
@test_case(points=None, hidden=False)
def test_causal_mask(causal_mask):
    import torch
    mask = causal_mask(3)
    assert mask.dtype == torch.bool, f"the mask should be bool, got {mask.dtype}"
    expected = torch.tensor([[True, False, False], [True, True, False], [True, True, True]])
    assert torch.equal(mask, expected), (
        "query i may see keys j <= i: True on and below the diagonal. Is your mask inverted (True = allowed here)?")

# %% exercise="causal_mask" role="hidden"
@pytest.mark.question("causal_mask")
@pytest.mark.points(2)
@pytest.mark.tags("inverted mask", "future leakage")
def test_causal_mask(student):
    """causal_mask(T) is a bool (T, T) mask with True where j <= i"""
    for T in (1, 4, 7):
        got = expect.shape(student.call("causal_mask", T), (T, T), f"causal_mask({T})")
        if got.dtype != torch.bool:
            raise StudentFault(f"causal_mask({T}) has dtype {got.dtype}; return a bool tensor.")
        if not torch.equal(got, torch.ones(T, T, dtype=torch.bool).tril()):
            raise StudentFault(f"causal_mask({T}) is wrong: query i may attend to keys j <= i (True on and below "
                               "the diagonal, torch.tril). An inverted or shifted mask leaks the future.")

# %% [markdown] exercise="padding_mask"
# ## 8. Padding mask
#
# Sequences in a batch have different lengths; positions past a sequence's length are PAD and must not be
# attended to. With `lengths[b]` real tokens in item $b$:
#
# $$\text{mask}_{b,1,j} = [\, j < \text{lengths}_b \,]$$
#
# Shape `(B, 1, T_k)`: the `1` broadcasts over the queries, because every query must ignore the same keys.

# %% exercise="padding_mask" role="solution"
def padding_mask(lengths, T_k):
    """Bool (B, 1, T_k) mask, True where key j < lengths[b].

    lengths: (B,) int tensor of real sequence lengths
    """
    # BEGIN SOLUTION
    positions = torch.arange(T_k, device=lengths.device)
    return (positions[None, :] < lengths[:, None]).unsqueeze(1)
    # END SOLUTION

# %% exercise="padding_mask" role="public"
@test_case(points=None, hidden=False)
def test_padding_mask(padding_mask):
    import torch
    mask = padding_mask(torch.tensor([2, 4]), 4)
    assert tuple(mask.shape) == (2, 1, 4), (
        f"expected shape (B, 1, T_k) = (2, 1, 4), got {tuple(mask.shape)}: the 1 broadcasts over queries")
    expected = torch.tensor([[[True, True, False, False]], [[True, True, True, True]]])
    assert torch.equal(mask.bool(), expected), "key j is real (True) when j < lengths[b]"

# %% exercise="padding_mask" role="hidden"
@pytest.mark.question("padding_mask")
@pytest.mark.points(2)
@pytest.mark.tags("padding mask broadcast", "inverted mask")
def test_padding_mask(student):
    """padding_mask(lengths, T_k) is a bool (B, 1, T_k) mask with True where j < lengths[b]"""
    for lengths, T_k in [([3, 7, 1], 7), ([2], 5), ([4, 4], 6)]:
        lengths = torch.tensor(lengths)
        got = expect.shape(student.call("padding_mask", lengths, T_k), (len(lengths), 1, T_k),
                           f"padding_mask({lengths.tolist()}, {T_k})", "The mask is (B, 1, T_k): the middle 1 "
                           "broadcasts over queries, so every query ignores the same padded keys.")
        want = (torch.arange(T_k)[None, :] < lengths[:, None]).unsqueeze(1)
        if got.dtype != torch.bool or not torch.equal(got, want):
            raise StudentFault(f"padding_mask({lengths.tolist()}, {T_k}) is wrong: key j is allowed (True) when "
                               "j < lengths[b], and the result is bool.")

# %% [markdown] exercise="softmax_entropy"
# ## 9. How peaked is a row? Entropy of the weights
#
# The entropy of one query's weights measures how spread out its attention is:
#
# $$H(\alpha_{i}) = -\sum_j \alpha_{ij} \log \alpha_{ij} \quad\text{(nats)}, \qquad 0 \log 0 = 0$$
#
# Uniform weights over $T_k$ keys give $\log T_k$; a one-hot row gives 0. Masked keys have weight exactly 0, and
# `0 * log(0)` is `nan` in floating point: use `torch.special.xlogy(p, p)`, which defines it as 0.

# %% exercise="softmax_entropy" role="solution"
def softmax_entropy(weights):
    """Entropy in nats of each distribution over the last dim, with 0 log 0 = 0.

    weights: (..., T_k), non-negative, each row sums to 1
    returns: weights.shape[:-1]
    """
    # BEGIN SOLUTION
    return -torch.special.xlogy(weights, weights).sum(dim=-1)
    # END SOLUTION

# %% exercise="softmax_entropy" role="public"
@test_case(points=None, hidden=False)
def test_softmax_entropy(softmax_entropy):
    import math
    import torch
    weights = torch.tensor([[0.25, 0.25, 0.25, 0.25], [1.0, 0.0, 0.0, 0.0]])
    entropy = softmax_entropy(weights)
    assert tuple(entropy.shape) == (2,), f"one entropy per row: expected shape (2,), got {tuple(entropy.shape)}"
    assert torch.isfinite(entropy).all(), "a weight of exactly 0 gave nan: 0 log 0 must count as 0 (torch.special.xlogy)"
    assert torch.allclose(entropy, torch.tensor([math.log(4), 0.0]), atol=1e-6), (
        f"uniform over 4 keys has entropy ln 4 = 1.386 nats and one-hot has 0, got {entropy.tolist()}. "
        "Use the natural log and a minus sign.")

# %% exercise="softmax_entropy" role="hidden"
@pytest.mark.question("softmax_entropy")
@pytest.mark.points(2)
@pytest.mark.tags("entropy wrong base or sign", "softmax over wrong dim")
def test_softmax_entropy_values(student, ref_scores):
    """softmax_entropy gives the entropy in nats per row, shape weights.shape[:-1]"""
    for shape in [(3, 5, 7), (2, 4), (1, 1, 6)]:
        (scores,) = inputs(17, shape)
        weights = torch.softmax(scores.double() * 2, dim=-1).float()
        expect.close(student.call("softmax_entropy", weights), ref_scores.softmax_entropy(weights.double()),
                     f"softmax_entropy of weights with shape {shape}", "H = -sum_j p_j ln p_j over the last dim, in "
                     "nats (natural log), one value per row.", rtol=1e-4, atol=1e-5)


@pytest.mark.question("softmax_entropy")
@pytest.mark.points(1)
@pytest.mark.tags("0 log 0")
def test_softmax_entropy_zeros(student):
    """softmax_entropy treats 0 log 0 as 0, so masked keys give finite values"""
    weights = torch.tensor([[[1.0, 0.0, 0.0], [0.5, 0.5, 0.0]]])
    expect.close(student.call("softmax_entropy", weights), torch.tensor([[0.0, math.log(2)]], dtype=torch.float64),
                 "softmax_entropy with zero weights", "p * p.log() is nan where p = 0; use torch.special.xlogy(p, p).")

# %% [markdown] exercise="saturation"
# ## 10. Why large scores saturate
#
# Dot products grow with the dimension: with unit-variance components, $\mathrm{Var}(q\cdot k) \approx d_k$. Large
# scores push softmax towards a one-hot row, whose gradient is tiny: the model stops learning which keys matter.
# Scaling by $1/\sqrt{d_k}$ keeps the variance near 1 whatever $d_k$.
#
# Run the experiment from the trainer's guide: the entropy of the weights for raw vs scaled scores as $d_k$ goes
# 8 → 64 → 256. Raw-score entropy should fall towards 0 as $d_k$ grows; scaled-score entropy should stay nearly
# constant. The grader runs the same experiment on your functions. Nothing new to implement here.

# %% exercise="saturation" role="hidden"
SATURATION_DIMS = (8, 64, 256)


def saturation_inputs(d):
    # 1024 query rows against 16 keys: the entropy SD across seeds is about 0.016 nats, well inside the
    # 0.1-nat margins below; the reference uses the very same seeded inputs, so comparing with it is exact.
    return randn(16, 64, d, seed=100 + d), randn(16, 16, d, seed=200 + d)


def student_entropy(student, score_name, d):
    scores = expect.shape(student.call(score_name, *saturation_inputs(d)), (16, 64, 16), f"{score_name} at d_k={d}")
    weights = expect.shape(student.call("attention_weights", scores), (16, 64, 16), "attention_weights")
    entropy = expect.shape(student.call("softmax_entropy", weights), (16, 64), "softmax_entropy")
    return entropy.double().mean().item()


@pytest.mark.question("saturation")
@pytest.mark.points(1)
@pytest.mark.tags("saturation")
def test_entropy_falls_for_raw_scores_only(student, saturation_reference):
    """Raw-score entropy falls as d_k grows (8 -> 64 -> 256); scaled-score entropy stays put"""
    raw = [student_entropy(student, "dot_scores", d) for d in SATURATION_DIMS]
    scaled = [student_entropy(student, "scaled_dot_scores", d) for d in SATURATION_DIMS]
    story = (f"mean entropy (nats) for d_k = 8/64/256: raw {', '.join(f'{h:.3f}' for h in raw)}; scaled "
             f"{', '.join(f'{h:.3f}' for h in scaled)} (reference raw {saturation_reference['raw']}, scaled "
             f"{saturation_reference['scaled']}).")
    # The experiment runs through the student's own pipeline, so a broken softmax or entropy shows here too.
    pipeline = " If attention_weights or softmax_entropy fail their own checks, fix those first."
    if not (raw[0] - raw[1] > 0.1 and raw[1] - raw[2] > 0.1 and raw[2] < 0.5):
        raise StudentFault("raw dot-product scores should saturate the softmax as d_k grows (entropy falling "
                           "towards 0), but they do not: " + story + pipeline)
    if abs(scaled[2] - scaled[0]) > 0.1:
        raise StudentFault("scaled scores should keep the entropy nearly constant across d_k, but they do not: "
                           + story + " Check the 1/sqrt(d_k) scale." + pipeline)
    for got, want in zip(raw + scaled, saturation_reference["raw"] + saturation_reference["scaled"]):
        if abs(got - want) > 0.05:
            raise StudentFault("the entropies differ from the reference experiment: " + story + pipeline)


@pytest.mark.question("saturation")
@pytest.mark.points(1)
@pytest.mark.tags("saturation")
def test_score_gradient_shrinks_when_saturated(student):
    """The gradient through softmax shrinks for raw d_k=256 scores compared with scaled ones"""
    norms = {}
    for name in ("dot_scores", "scaled_dot_scores"):
        scores = expect.shape(student.call(name, *saturation_inputs(256)), (16, 64, 16), name)
        reply = student.run("attention_weights", scores, grad_args=(0,), backward={"grad": randn(16, 64, 16, seed=7)})
        grad = expect.grad_present(reply.arg_grads.get("0"), "the scores", "Keep softmax in the graph.")
        norms[name] = grad.double().norm(dim=-1).median().item()
    ratio = norms["dot_scores"] / norms["scaled_dot_scores"]
    if not ratio < 0.1:
        raise StudentFault(f"at d_k=256 the median gradient reaching raw scores should be far smaller than for "
                           f"scaled scores (about 1/87 in the reference), but the ratio is {ratio:.3g}: softmax "
                           "saturation is what makes unscaled attention hard to train.")

# %% exercise="saturation" role="explore"
import matplotlib.pyplot as plt


def mean_entropy(score_fn, d_k, rows=4096, keys=16, seed=0):
    generator = torch.Generator().manual_seed(seed)
    Q = torch.randn(1, rows, d_k, generator=generator)
    K = torch.randn(1, keys, d_k, generator=generator)
    return softmax_entropy(attention_weights(score_fn(Q, K))).mean().item()


try:
    dims = [8, 64, 256]
    raw = [mean_entropy(dot_scores, d) for d in dims]
    scaled = [mean_entropy(scaled_dot_scores, d) for d in dims]
    for d, h_raw, h_scaled in zip(dims, raw, scaled):
        print(f"d_k = {d:3d}: entropy raw {h_raw:.3f} nats, scaled {h_scaled:.3f} nats (uniform: {math.log(16):.3f})")
    plt.figure(figsize=(5, 3))
    plt.plot(dims, raw, "o-", label="raw q.k")
    plt.plot(dims, scaled, "s-", label="q.k / sqrt(d_k)")
    plt.axhline(math.log(16), color="gray", linestyle=":", label="uniform (ln 16)")
    plt.xscale("log", base=2)
    plt.xlabel("d_k")
    plt.ylabel("mean entropy (nats)")
    plt.legend()
    plt.title("Raw scores saturate softmax as d_k grows")
    plt.show()
except NotImplementedError as missing:
    print("Finish the exercises above first:", missing)

# %% [markdown]
# **Discussion.** When might you still prefer Bahdanau's additive score over dot products? (Think of query and
# key sizes that differ, small $d_k$, and what the extra parameters buy.)
