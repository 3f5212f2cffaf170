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
# - A **mask** is 1/`True` where a key is **allowed** and 0/`False` where it is **forbidden**; bool, 0/1 int and
#   0/1 float masks all count, in any shape that broadcasts to the scores. (PyTorch's `nn.MultiheadAttention`
#   uses the opposite polarity; this course follows the lesson.)
# - **The masking rule:** a masked key must end with weight **exactly 0** after the softmax, for any allowed
#   scores in the range the course uses, $|e_{ij}| \le 10\,000$. Filling with `float("-inf")` does it (so do
#   `torch.finfo(dtype).min`, `-1e9` and `-1e6`); a small fill such as `-30` does not, because allowed scores
#   of `-300` would then lose to it. The grader applies this rule to `apply_mask`, `attention_weights` and
#   (in the next assignment) `attention` alike.
# - Softmax runs over the **keys**, the last dimension.
# - Build the pipeline yourself: fused attention (`F.scaled_dot_product_attention`, `nn.MultiheadAttention`)
#   cannot run inside your functions: the grader switches it off and looks at what runs, not at what your
#   functions are called.
# - What the grader leaves out, and what it expects where the lesson is silent:
#   - a row whose keys are **all** masked never occurs: every query keeps at least one allowed key, so what your
#     code gives for such a row (NaN with `-inf`, a uniform row with `-1e9`) is not graded;
#   - inputs are float32; compute in float32 or float64 and return at least that precision (results are compared
#     with a float64 reference within float32 rounding, so float16 or bfloat16 results fail);
#   - a module holds exactly the parameters its exercise names, with the shapes given, and no others (no biases,
#     no extra learnable tensors); plain attributes and buffers are fine;
#   - functions must not modify any of their inputs in place (scores, masks, Q, K, V alike), on any call.
#   - the sizes graded, each up to its largest: B up to 4; T_q, T_k and T up to 64; d up to 64; `softmax_entropy`'s
#     weights with 0 to 4 leading dimensions (`(T_k,)` up to `(A, B, C, D, T_k)`). Every size may be 1, and any
#     two may be equal (T_q = B, T_k = d, T_q = T_k ...); a mask comes in any shape that broadcasts, a 1-D `(T_k,)`
#     one included; allowed scores reach -10 000 in the same row as masked scores of +10 000.
#   - each function is called many times in a row, on new inputs whose memory and `id()` may be those of inputs
#     freed before, and on the same tensors refilled with other values, with your other functions called in
#     between: every answer must come from the values of its own call's inputs (an answer cached by a tensor's
#     `id()`, address or layout goes stale).
#   - your code runs in one thread of one process: starting a thread or a process is refused while grading
#     (nothing in these exercises needs one).
#
# Fill in every `raise NotImplementedError(...)` line, then run the check cell under it. A failed check tells
# you, in the lesson's terms, what it tested and what it saw.

# %% role="setup"
import math

import torch
from torch import nn
import torch.nn.functional as F

# %% role="hidden-setup"
import math

import pytest
import torch

from autograder.grading import expect, tolerance as tol
from autograder.grading import circumvention, space
from autograder.grading.calls import Call, charge, in_a_row, judge_sequence, record, send_sequence, stateful
from autograder.grading.callees import Callee, explained, explained_gradients
from autograder.grading.memo import memoized
from autograder.grading.probes import random_mask
from autograder.grading.student import StudentFault, randn, run_request, seeded_generator, seeded_inputs as inputs

pytestmark = pytest.mark.assignment("attention_scores")

# (B, T_q, T_k, d): T_q != T_k != d exposes swapped axes; the square case exposes a missing transpose;
# d in {6, 9, 16} never lets d ** 1/2 (= d / 2), sqrt(T_k) or a hard-coded sqrt(64) pass for sqrt(d), and
# B = 1 / T_q = 1 appears only in the edge-shape tests, which are about squeeze().
SHAPES = [(3, 5, 7, 6), (2, 3, 9, 16), (2, 4, 6, 9)]
EDGE_SHAPES = [(1, 1, 4, 9), (2, 6, 6, 6)]


@memoized  # the same for every student: computed once per grading process
def scores_reference(Q, K, scale=1.0):
    return tol.scaled(*tol.matmul(Q, K.double().transpose(-2, -1)), scale)


def mask_forms(allowed):
    """The documented forms of one mask: bool, 0/1 int, 0/1 float."""
    return [(allowed, "bool"), (allowed.long(), "0/1 int"), (allowed.float(), "0/1 float")]


def far_below_zero(scores, allowed, seed):
    """Scores whose allowed entries sit hundreds to thousands below zero (inside the documented range,
    |score| <= 1e4): a fill like -30 or -100 then outweighs every allowed key, -1e6 and -inf do not."""
    depth = torch.tensor([300.0, 3000.0])[torch.randint(2, scores.shape[:-1], generator=seeded_generator(seed))]
    return scores - depth.unsqueeze(-1)


@pytest.mark.question("dot_scores")
@pytest.mark.points(0)
@pytest.mark.visibility("hidden")  # for the instructor: never shown to students
@pytest.mark.tags("probe circumvention")
def test_file_leaves_the_kernel_watch_alone(student):
    """Flagged for the instructor, no points: the file does not reach for tools that hide what code runs"""
    circumvention.flag(student)

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
        "Scores hold one entry per (query, key) pair: row i is query i, column j is key j.")


@test_case(points=None, hidden=False)
def test_dot_scores_values(dot_scores):
    import torch
    Q = torch.tensor([[[1.0, 0.0], [0.0, 2.0]]])
    K = torch.tensor([[[1.0, 1.0], [3.0, -1.0], [0.0, 0.5]]])
    expected = torch.tensor([[[1.0, 3.0, 0.0], [2.0, -2.0, 1.0]]])
    scores = dot_scores(Q, K)
    assert tuple(scores.shape) == (1, 2, 3) and torch.allclose(scores, expected), (
        "e_ij should be the dot product q_i . k_j (row i = query, column j = key), unscaled: expected "
        f"{expected.tolist()}, got {scores.tolist()}." + known_mistake("test_dot_scores_values", 0, scores))

# %% exercise="dot_scores" role="hidden"
def check_scores(student, name, scale_of, shapes, seed, callees=()):
    """`name` twice on each shape's inputs, all in one sequence (one round trip): the two answers the same, then
    right; every input left as it was (charged after the values). `callees` as in check_score_sequence."""
    calls = [Call(name, tuple(inputs(seed, (B, T_q, d), (B, T_k, d)))) for B, T_q, T_k, d in shapes for _ in (0, 1)]
    answers = send_sequence(student, calls)
    for n, (B, T_q, T_k, d) in enumerate(shapes):
        pair = answers.outputs[2 * n:2 * n + 2]
        for call, output in zip(calls[2 * n:], pair):
            record(student, call, output)
        if len(pair) < 2:
            break  # a call raised: charged below
        Q, K = calls[2 * n].args
        what = calls[2 * n].describe()  # the call as it was sent: shapes and dtypes
        try:
            expect.same_each_time(pair, what)
            expect.shape(pair[0], (B, T_q, T_k), what, "Scores are (B, T_q, T_k): one row per query, one column "
                         "per key, for every batch item.")
            expect.within(pair[0], scores_reference(Q, K, scale_of(d)), what, HINTS[name])
        except StudentFault as fault:
            raise explained(student, calls[2 * n], fault, callees, output=pair[0]) from None
    charge(student, answers, calls, callees)


def check_score_sequence(student, name, scale_of, seed, count=6, callees=()):
    """`name` on the fixed shapes, on sizes drawn from the documented space and on its edges (grading/space.py:
    every coincidence of B, T_q, T_k and d, each at 1 and at its largest), as one sequence of calls with the file's
    other functions in between (grading/calls.py: stateful); every answer judged, every input of every call
    checked for changes. `callees`: graded functions `name` may build on, whose mistakes are theirs."""
    shapes = [*SHAPES, *space.draw_examples("sizes", count, seed), *space.edge_sizes()]
    calls = [(Call(name, (randn(B, T_q, d, seed=seed + 50 + 2 * n), randn(B, T_k, d, seed=seed + 51 + 2 * n))),
              lambda got, args, what: check_score_answer(got, args, what, name, scale_of))
             for n, (B, T_q, T_k, d) in enumerate(shapes)]
    judge_sequence(student, stateful(calls, stirring(name)), callees)


def check_score_answer(got, args, what, name, scale_of):
    Q, K = args
    expect.shape(got, (Q.shape[0], Q.shape[1], K.shape[1]), what, "Scores are (B, T_q, T_k): one row per query, "
                 "one column per key.")
    expect.within(got, scores_reference(Q, K, scale_of(K.shape[-1])), what, HINTS[name])


def stirring(name):
    """Unjudged calls of the file's other functions, made between the judged calls of `name`: code whose answer
    depends on what ran before shows it (their own answers are judged by their own questions)."""
    others = [Call("dot_scores", (randn(2, 3, 4, seed=901), randn(2, 5, 4, seed=902)), judged=False),
              Call("apply_mask", (randn(2, 3, 5, seed=903), random_mask(904, 3, 5)), judged=False),
              Call("scaled_dot_scores", (randn(1, 4, 6, seed=905), randn(1, 4, 6, seed=906)), judged=False),
              Call("attention_weights", (randn(2, 3, 5, seed=907), random_mask(908, 2, 1, 5)), judged=False),
              Call("softmax_entropy", (torch.full((3, 4), 0.25),), judged=False),
              Call("causal_mask", (5,), judged=False)]
    return [call for call in others if call.target != name]


HINTS = {"dot_scores": "e_ij = q_i . k_j with no scaling; row i is a query, column j a key.",
         "scaled_dot_scores": "e_ij = q_i . k_j / sqrt(d_k), with d_k = K.shape[-1] (this check uses several d_k)."}


@pytest.mark.question("dot_scores")
@pytest.mark.points(2)
@pytest.mark.tags("wrong transpose", "unwanted scaling")
def test_dot_scores_values(student):
    """dot_scores matches q_i . k_j at several shapes (T_q != T_k != d) and leaves its inputs unchanged"""
    check_score_sequence(student, "dot_scores", lambda d: 1.0, 2)


@pytest.mark.question("dot_scores")
@pytest.mark.points(1)
@pytest.mark.tags("squeeze without dim", "wrong transpose")
def test_dot_scores_edge_shapes(student):
    """dot_scores is right for one batch item with one query, and for a square T_q = T_k = d case"""
    check_scores(student, "dot_scores", lambda d: 1.0, EDGE_SHAPES, 1)


def check_score_gradients(student, name, scale, callees=()):
    Q, K, seed = inputs(30, (2, 3, 9), (2, 5, 9), (2, 3, 5))
    reply = None
    try:
        reply = student.run(name, Q, K, grad_args=(0, 1), backward={"grad": seed})
        for index, what in ((0, "Q"), (1, "K")):
            expect.grad_present(reply.arg_grads.get(str(index)), f"{what} through {name}")
        expect.gradient_within(reply.arg_grads["0"], tol.scaled(*tol.matmul(seed, K), scale),
                               f"the gradient of {name} w.r.t. Q")
        _, grad_K = tol.gradients(lambda q, k: q @ k.transpose(-2, -1) * scale, [Q, K], seed)
        expect.gradient_within(reply.arg_grads["1"], grad_K, f"the gradient of {name} w.r.t. K", "This check compares "
                               "dE/dK with the reference's (dE/dscores)^T Q, scaled like the scores.")
    except StudentFault as fault:
        raise explained_gradients(student, Call(name, (Q, K), grad_args=(0, 1)), seed,
                                  reply and reply.arg_grads, fault, callees) from None


@pytest.mark.question("dot_scores")
@pytest.mark.points(1)
@pytest.mark.tags("graph cut")
def test_dot_scores_gradients(student):
    """Gradients flow from the dot-product scores back to Q and K, and equal the reference's"""
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
        f"with d_k = 16 and all-ones vectors, q.k = 16 and 16 / sqrt(16) = 4, but you returned "
        f"{scores.flatten().tolist()}." + known_mistake("test_scaled_dot_scores_scale", 0, scores))

# %% exercise="scaled_dot_scores" role="hidden"
# scaled_dot_scores may build on the student's dot_scores: a mistake there is charged in dot_scores, once
# (grading/callees.py); a scaling of its own is judged here.
DOT_SCORES = Callee("dot_scores", judge=lambda got, args, what: check_score_answer(got, args, what, "dot_scores",
                                                                                   lambda d: 1.0),
                    then=lambda scores, args: scores / math.sqrt(args[1].shape[-1]))


@pytest.mark.question("scaled_dot_scores")
@pytest.mark.points(2)
@pytest.mark.tags("wrong scale factor")
def test_scaled_dot_scores_values(student):
    """scaled_dot_scores divides q_i . k_j by sqrt(d_k) for d_k = 6, 9 and 16"""
    check_score_sequence(student, "scaled_dot_scores", lambda d: d ** -0.5, 4, callees=(DOT_SCORES,))


@pytest.mark.question("scaled_dot_scores")
@pytest.mark.points(1)
@pytest.mark.tags("squeeze without dim", "wrong scale factor")
def test_scaled_dot_scores_edge_shapes(student):
    """scaled_dot_scores is right for one batch item with one query, and for a square case"""
    check_scores(student, "scaled_dot_scores", lambda d: d ** -0.5, EDGE_SHAPES, 3, callees=(DOT_SCORES,))


@pytest.mark.question("scaled_dot_scores")
@pytest.mark.points(1)
@pytest.mark.tags("graph cut")
def test_scaled_dot_scores_gradients(student):
    """Gradients flow from the scaled scores back to Q and K, and equal the reference's"""
    check_score_gradients(student, "scaled_dot_scores", 1 / 3, callees=(DOT_SCORES,))  # d_k = 9

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
        "self.W.weight should be W, with shape (d_q, d_k) = (3, 2)")
    assert score.W.bias is None, "the general score has no bias: self.W.bias should be None"
    with torch.no_grad():
        score.W.weight.copy_(torch.tensor([[1.0, 0.0], [0.0, 0.0], [0.0, 2.0]]))
    Q = torch.tensor([[[1.0, 1.0, 1.0]]])
    K = torch.tensor([[[1.0, 0.0], [0.0, 1.0]]])
    scores = score(Q, K)
    assert tuple(scores.shape) == (1, 1, 2), f"expected (B, T_q, T_k) = (1, 1, 2), got {tuple(scores.shape)}"
    assert torch.allclose(scores, torch.tensor([[[1.0, 2.0]]])), (
        f"e_ij = q_i^T W k_j with W = self.W.weight gives [[[1.0, 2.0]]] here, got {scores.tolist()}."
        + known_mistake("test_general_score", 0, scores))

# %% exercise="GeneralScore" role="hidden"
def general_reference(Q, K, W):
    """q_i^T W k_j: one product over d_q + d_k terms whichever way round it is computed."""
    ref = Q.double() @ W.double() @ K.double().transpose(-2, -1)
    bound = tol.gamma(W.shape[0] + W.shape[1]) * (Q.double().abs() @ W.double().abs() @ K.double().abs().mT)
    return ref, bound


@pytest.mark.question("GeneralScore")
@pytest.mark.points(1)
@pytest.mark.tags("bias in score", "W vs W transposed")
def test_general_score_parameters(student):
    """GeneralScore(d_q, d_k) holds exactly W = self.W.weight of shape (d_q, d_k), with no bias"""
    Q, K, W = inputs(5, (2, 3, 5), (2, 4, 3), (5, 3))
    reply = student.run("GeneralScore", Q, K, init=(5, 3), params={"W.weight": W})
    if reply.param_names != {"W.weight": [5, 3]}:
        raise StudentFault(f"GeneralScore(5, 3) has parameters {reply.param_names}; expected only W.weight, of shape "
                           "(d_q, d_k) = (5, 3), and no bias.")
    # The parameter list is the child's own report; pay for it only together with a value it explains.
    expect.within(reply.output, general_reference(Q, K, W), "GeneralScore(5, 3) scores")


@pytest.mark.question("GeneralScore")
@pytest.mark.points(2)
@pytest.mark.tags("W vs W transposed", "wrong transpose")
def test_general_score_values(student):
    """GeneralScore computes q_i^T W k_j, W square and not, on inputs freed and refilled in place, and W = I"""
    cases = [((d_q, d_k), inputs(6, (B, T_q, d_q), (B, T_k, d_k), (d_q, d_k), (B, T_q, d_q), (B, T_k, d_k)))
             for B, T_q, T_k, d_q, d_k in [(3, 5, 7, 6, 4), (2, 4, 4, 5, 5), (1, 1, 3, 2, 7)]]
    Q, K = inputs(7, (2, 3, 4), (2, 5, 4))
    rows = [in_a_row((Q, K), (Q2, K2)) for _, (Q, K, W, Q2, K2) in cases]  # inputs freed, refilled in place
    *replies, identity = student.runs([  # every layer's probe in one round trip
        *(run_request("GeneralScore", Q, K, init=sizes, params={"W.weight": W}, more=more)
          for (sizes, (Q, K, W, Q2, K2)), (more, _) in zip(cases, rows)),
        run_request("GeneralScore", Q, K, init=(4, 4), params={"W.weight": torch.eye(4)})])
    for ((d_q, d_k), (Q1, K1, W, Q2, K2)), (_, sent), reply in zip(cases, rows, replies):
        hint = ("e_ij = q_i^T W k_j with W = self.W.weight, of shape (d_q, d_k); this check uses square and "
                "non-square W; every answer must come from its own call's inputs.")
        for got, ((q, k), call) in zip(student.judging(reply).outputs, sent):
            expect.within(got, general_reference(q, k, W), f"GeneralScore({d_q}, {d_k}) scores ({call})", hint)
    expect.within(student.judging(identity).output, scores_reference(Q, K), "GeneralScore with W = I",
                  "With W = I the general score must equal the plain dot-product score.")


@pytest.mark.question("GeneralScore")
@pytest.mark.points(1)
@pytest.mark.tags("graph cut")
def test_general_score_gradients(student):
    """Gradients flow from the scores to Q, K and W, and equal the reference's"""
    Q, K, W, seed = inputs(8, (2, 3, 4), (2, 5, 6), (4, 6), (2, 3, 5))
    reply = student.run("GeneralScore", Q, K, init=(4, 6), params={"W.weight": W}, grad_args=(0, 1),
                        backward={"grad": seed})
    for name, grad in [("Q", reply.arg_grads.get("0")), ("K", reply.arg_grads.get("1")),
                       ("self.W.weight", reply.param_grads.get("W.weight"))]:
        expect.grad_present(grad, name)
    KW, dKW = tol.matmul(K, W.double().T)
    expect.gradient_within(reply.arg_grads["0"], tol.matmul(seed, KW, 0.0, dKW), "the gradient with respect to Q")
    _, grad_K, grad_W = tol.gradients(lambda q, k, w: q @ w @ k.transpose(-2, -1), [Q, K, W], seed)
    expect.gradient_within(reply.arg_grads["1"], grad_K, "the gradient with respect to K")
    expect.gradient_within(reply.param_grads["W.weight"], grad_W, "the gradient with respect to self.W.weight")

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
            f"self.{name}.weight should have shape {shape}")
        assert layer.bias is None, f"self.{name} should have no bias"
    scores = score(torch.randn(1, 1, 3), torch.randn(1, 5, 2))
    assert tuple(scores.shape) == (1, 1, 5), (
        f"expected (B, T_q, T_k) = (1, 1, 5) for one batch item and one query, got {tuple(scores.shape)}")
    with torch.no_grad():
        for layer in (score.W_q, score.W_k, score.v):
            layer.weight.fill_(1.0)
    result = score(torch.tensor([[[1.0, -2.0, 0.5]]]), torch.tensor([[[-1.0, 0.5]]]))
    value = result.flatten()[0].item()
    expected = 4 * torch.tanh(torch.tensor(-1.0)).item()
    assert abs(value - expected) < 1e-5, (
        f"with all weights 1, W_q q = -0.5 and W_k k = -0.5 in each of the 4 hidden units, so the score is "
        f"v^T tanh(W_q q + W_k k) = 4 tanh(-1) = {expected:.4f}; got {value:.4f}."
        + known_mistake("test_additive_score", 1, result))

# %% exercise="AdditiveScore" role="hidden"
def additive_reference(Q, K, Wq, Wk, v):
    """v^T tanh(W_q q_i + W_k k_j) and its float32 bound (tanh passes errors on, at most 1:1)."""
    q, dq = tol.linear(Q, Wq)
    k, dk = tol.linear(K, Wk)
    z = q.unsqueeze(2) + k.unsqueeze(1)
    t = torch.tanh(z)
    dt = dq.unsqueeze(2) + dk.unsqueeze(1) + tol.U * z.abs() + 2 * tol.U * t.abs()
    out, dout = tol.matmul(t, v.double().T, dt)
    return out.squeeze(-1), dout.squeeze(-1)


@pytest.mark.question("AdditiveScore")
@pytest.mark.points(1)
@pytest.mark.tags("bias in score")
def test_additive_score_parameters(student):
    """AdditiveScore(d_q, d_k, d_h) holds W_q, W_k and v without biases"""
    Q, K, Wq, Wk, v = inputs(9, (2, 2, 5), (2, 3, 3), (4, 5), (4, 3), (1, 4))
    reply = student.run("AdditiveScore", Q, K, init=(5, 3, 4),
                        params={"W_q.weight": Wq, "W_k.weight": Wk, "v.weight": v})
    expected = {"W_q.weight": [4, 5], "W_k.weight": [4, 3], "v.weight": [1, 4]}
    if reply.param_names != expected:
        raise StudentFault(f"AdditiveScore(5, 3, 4) has parameters {reply.param_names}; expected {expected} "
                           "(weights of shape (d_h, d_q), (d_h, d_k) and (1, d_h), and no biases).")
    expect.within(reply.output, additive_reference(Q, K, Wq, Wk, v), "AdditiveScore(5, 3, 4) scores")


@pytest.mark.question("AdditiveScore")
@pytest.mark.points(2)
@pytest.mark.tags("missing tanh", "swapped axes", "squeeze without dim")
def test_additive_score_values(student):
    """AdditiveScore computes v^T tanh(W_q q_i + W_k k_j) for every pair, on inputs freed and refilled in place"""
    cases = []
    for B, T_q, T_k, d_q, d_k, d_h in [(3, 5, 7, 6, 4, 8), (1, 1, 4, 3, 3, 5), (2, 4, 4, 5, 2, 3)]:
        Q, K, Wq, Wk, v, Q2, K2 = inputs(10, (B, T_q, d_q), (B, T_k, d_k), (d_h, d_q), (d_h, d_k), (1, d_h),
                                          (B, T_q, d_q), (B, T_k, d_k))
        Wq, Wk = Wq * 0.7, Wk * 0.7  # keep tanh away from saturation so a missing tanh shows
        cases.append(((B, T_q, T_k, d_q, d_k, d_h), (Q, K, Wq, Wk, v, Q2, K2)))
    rows = [in_a_row((Q, K), (Q2, K2)) for _, (Q, K, Wq, Wk, v, Q2, K2) in cases]  # inputs freed, refilled in place
    replies = student.runs([run_request("AdditiveScore", Q, K, init=(d_q, d_k, d_h), more=more,
                                        params={"W_q.weight": Wq, "W_k.weight": Wk, "v.weight": v})
                            for ((_, _, _, d_q, d_k, d_h), (Q, K, Wq, Wk, v, Q2, K2)), (more, _) in zip(cases, rows)])
    for ((B, T_q, T_k, d_q, d_k, d_h), (Q, K, Wq, Wk, v, Q2, K2)), (_, sent), reply in zip(cases, rows, replies):
        student.judging(reply)
        hint = ("e_ij = v^T tanh(W_q q_i + W_k k_j) for every (query, key) pair: scores of shape (B, T_q, T_k), "
                "B = 1 and T_q = 1 included; every answer must come from its own call's inputs.")
        for got, ((q, k), call) in zip(reply.outputs, sent):
            expect.within(got, additive_reference(q, k, Wq, Wk, v),
                          f"AdditiveScore at B={B}, T_q={T_q}, T_k={T_k} ({call})", hint)


@pytest.mark.question("AdditiveScore")
@pytest.mark.points(1)
@pytest.mark.tags("graph cut")
def test_additive_score_gradients(student):
    """Gradients flow from the scores to Q, K, W_q, W_k and v, and each equals the reference's"""
    Q, K, seed, Wq, Wk, v = inputs(11, (2, 3, 4), (2, 5, 6), (2, 3, 5), (3, 4), (3, 6), (1, 3))
    params = {"W_q.weight": Wq * 0.7, "W_k.weight": Wk * 0.7, "v.weight": v}  # known weights: values judged too
    reply = student.run("AdditiveScore", Q, K, init=(4, 6, 3), params=params, grad_args=(0, 1),
                        backward={"grad": seed})
    grads = [("Q", reply.arg_grads.get("0")), ("K", reply.arg_grads.get("1"))]
    grads += [(f"self.{n}", reply.param_grads.get(n)) for n in ("W_q.weight", "W_k.weight", "v.weight")]
    for name, grad in grads:
        expect.grad_present(grad, name)
    references = tol.gradients(additive_float64, [Q, K, params["W_q.weight"], params["W_k.weight"], v], seed)
    for (name, grad), reference in zip(grads, references):
        expect.gradient_within(grad, reference, f"the gradient with respect to {name}", "This check compares each "
                      "gradient with that of e_ij = v^T tanh(W_q q_i + W_k k_j).")


def additive_float64(Q, K, Wq, Wk, v):
    return (torch.tanh((Q @ Wq.T).unsqueeze(2) + (K @ Wk.T).unsqueeze(1)) @ v.T).squeeze(-1)

# %% [markdown] exercise="apply_mask"
# ## 5. Masks are score surgery
#
# A forbidden key (padding, or a future token) must get **zero** weight. Edit the *scores*, before softmax:
#
# $$\tilde e_{ij} = \begin{cases} e_{ij} & \text{mask}_{ij} = 1 \\ -\infty & \text{mask}_{ij} = 0\end{cases}
# \qquad\Longrightarrow\qquad \alpha_{ij} = \frac{e^{\tilde e_{ij}}}{\sum_{j'} e^{\tilde e_{ij'}}} = 0 \text{ where masked}$$
#
# `mask` may be bool or 0/1 (int or float) and any shape that broadcasts to the scores, e.g. `(T_q, T_k)` or
# `(B, 1, T_k)`. Return a **new** tensor: `masked_fill` (not `masked_fill_`) leaves the input alone.
# Multiplying scores by the mask does not work: a score of 0 still gets weight. The grader checks the masking
# rule above: after a softmax of what you return, masked keys weigh exactly 0, even when every allowed score
# is far below zero.

# %% exercise="apply_mask" role="solution"
def apply_mask(scores, mask):
    """Scores where mask is 1/True, -inf where mask is 0/False.

    scores: (B, T_q, T_k)
    mask:   bool or 0/1 tensor broadcastable to scores; 1/True = allowed, 0/False = forbidden
    returns: a new tensor shaped like scores; the input is not modified. Masked keys must get exactly zero
             weight after softmax for any allowed scores with |score| <= 1e4 (-inf does that; -30 does not).
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
    assert torch.equal(scores, before), "apply_mask changed its input: it should return a new tensor and leave the scores unchanged"
    assert masked[0, 0, 0] == 1.0 and masked[0, 0, 2] == 3.0, (
        "allowed keys (mask 1) keep their scores." + known_mistake("test_apply_mask", 0, masked))
    weight = torch.softmax(masked.float(), dim=-1)[0, 0, 1].item()
    assert weight == 0.0, (
        f"after softmax the forbidden key (mask 0) still has weight {weight:.3g}; it must be exactly 0 (mask value "
        "0 = forbidden)." + known_mistake("test_apply_mask", 0, masked))
    far = apply_mask(torch.tensor([[[-300.0, 0.0, -310.0]]]), torch.tensor([[[1, 0, 1]]]))
    weight = torch.softmax(far.float(), dim=-1)[0, 0, 1].item()
    assert weight == 0.0, (
        f"with allowed scores of -300 and -310 the forbidden key still gets weight {weight:.3g}; it must be exactly "
        "0 for any allowed scores." + known_mistake("test_apply_mask", 1, far))

# %% exercise="apply_mask" role="hidden"
MASK_HINT = ("A masked key must end with weight exactly 0 after the softmax, for any allowed scores in the range "
             "the course uses (|score| <= 10 000), allowed scores far below zero included; 1/True = allowed, "
             "0/False = forbidden.")


def mask_probes(seed):
    """(scores, mask, allowed (B, T_q, T_k), what): every documented mask form and shape, rows that
    differ, T_q != T_k, and allowed scores far below zero."""
    B, T_q, T_k = 3, 4, 6
    (scores,) = inputs(seed, (B, T_q, T_k))
    full = random_mask(seed + 1, B, T_q, T_k)
    square = random_mask(seed + 2, T_q, T_k)
    lengths = torch.tensor([6, 3, 1])
    padding = (torch.arange(T_k)[None, :] < lengths[:, None]).unsqueeze(1)
    probes = []
    for mask, kind in mask_forms(full):
        probes.append((scores, mask, full, f"a {kind} (B, T_q, T_k) mask whose rows differ"))
    probes.append((scores, square.long(), square.expand(B, T_q, T_k), "a 0/1 int (T_q, T_k) mask"))
    probes.append((scores, padding.float(), padding.expand(B, T_q, T_k), "a 0/1 float (B, 1, T_k) padding mask"))
    probes.append((far_below_zero(scores, full, seed + 3), full, full,
                   "a bool mask, allowed scores hundreds to thousands below zero"))
    return probes


def check_masked_scores(got, scores, allowed, what):
    got = expect.shape(got, tuple(scores.shape), what, "Masking keeps the scores' shape.")
    kept = got.double()[allowed] - scores.double()[allowed]
    if not (kept.abs() <= 2 * tol.U * scores.double()[allowed].abs()).all():
        raise StudentFault(f"{what}: allowed scores changed (mask 1/True must keep the score).")
    # The rule is about what the masked scores do: after a float32 softmax they must weigh exactly 0.
    expect.masked_are_zero(torch.softmax(got.float(), dim=-1), allowed, what, MASK_HINT)


@pytest.mark.question("apply_mask")
@pytest.mark.points(2)
@pytest.mark.tags("inverted mask", "mask multiplied into scores", "small fill value")
def test_apply_mask_values(student):
    """apply_mask keeps allowed scores and gives forbidden keys exactly zero weight, for every mask form"""
    judge = lambda got, args, what: check_masked_scores(got, args[0], allowed_by(*args), what)  # noqa: E731
    judge_sequence(student, stateful(mask_calls("apply_mask", 12, 40, judge), stirring("apply_mask")))


def allowed_by(scores, mask):
    """(B, T_q, T_k) bool: the keys a call's mask allows, at its scores' shape."""
    return (mask != 0).expand(scores.shape)


def mask_calls(name, fixed_seed, drawn_seed, judge, count=8):
    """[(Call, judge)]: `name`(scores, mask) on the fixed probes, then on masks drawn from the documented space
    (grading/space.py), each mask in its drawn layout, the first one's scores requiring a gradient (as in
    training), then on the space's edges: every mask form at every coincidence and bound of the sizes, with allowed scores at
    -1e4 and masked ones at +1e4 in one row."""
    return [(call, judge) for call in masked_calls(name, fixed_seed, drawn_seed, count)]


@memoized  # the same for every student: built once per grading process
def masked_calls(name, fixed_seed, drawn_seed, count):
    probes = [*space.mask_draws(count, drawn_seed, coincident=False), *space.edge_masks(drawn_seed * 1000)]
    calls = []
    for n, probe in enumerate(probes):
        scores, mask, _ = probe.build()
        calls.append(Call(name, (scores, mask), layouts={1: probe.child_layout()}, grad_args=(0,) if n == 0 else (),
                          note=probe.describe()))
    fixed = [Call(name, (scores, mask), note=kind) for scores, mask, _, kind in mask_probes(fixed_seed)]
    return fixed + calls  # the fixed probes first: a mistake's diagnosis reads the calls up to the first failure


@pytest.mark.question("apply_mask")
@pytest.mark.points(1)
@pytest.mark.tags("in-place mask", "padding mask broadcast", "graph cut")
def test_apply_mask_broadcast_and_inputs(student):
    """apply_mask broadcasts (B, 1, T_k) masks, handles two masks of one shape in a row, keeps the graph and
    leaves its inputs alone"""
    (scores,) = inputs(14, (2, 3, 5))
    first = torch.tensor([[[1, 1, 1, 0, 0]], [[1, 1, 1, 1, 0]]], dtype=torch.bool)
    second = torch.tensor([[[0, 1, 1, 1, 1]], [[1, 0, 0, 1, 1]]], dtype=torch.bool)
    (seed,) = inputs(15, (2, 3, 5))
    reply, backward = student.runs([  # the values and the gradient in one round trip
        run_request("apply_mask", scores, first, check_inputs=True, more=[((scores, second), {})]),
        run_request("apply_mask", scores, first, grad_args=(0,), backward={"grad": seed})])
    student.judging(reply)
    for got, mask, call in zip(reply.outputs, (first, second), ("first", "second")):
        check_masked_scores(got, scores, mask.expand(2, 3, 5), f"apply_mask with a (B, 1, T_k) mask ({call} of two "
                            "masks of the same shape)")
    if any(reply.inputs_changed):
        raise StudentFault("apply_mask modified the scores passed in; it must return a new tensor and leave its "
                           "inputs unchanged.")
    grad = expect.shape(expect.grad_present(student.judging(backward).arg_grads.get("0"), "the scores through apply_mask",
                                            "This check asks for the gradient of the "
                                            "masked scores with respect to the scores."), (2, 3, 5), "the gradient")
    allowed = first.expand(2, 3, 5)
    # Only allowed scores are judged: what reaches a masked score (0 from masked_fill, the seed from an
    # additive -inf mask) never reaches the weights, since softmax gives it zero weight.
    if not torch.equal(grad.double()[allowed], seed.double()[allowed]):
        raise StudentFault("the gradient through apply_mask is wrong: allowed scores must pass their gradient "
                           "through unchanged.")

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
        "each query's weights must sum to 1 over the keys (the last dimension)")
    mask = torch.tensor([1, 1, 0, 1])
    weights = attention_weights(torch.tensor([[[0.0, 1.0, 50.0, 0.0]]]), mask)
    assert weights[0, 0, 2] == 0, (
        "a masked key must get weight exactly 0, even with a huge score."
        + known_mistake("test_attention_weights", 1, weights))
    assert torch.allclose(weights.sum(-1), torch.ones(1, 1)), (
        "rows must still sum to 1 under a mask." + known_mistake("test_attention_weights", 1, weights))

# %% exercise="attention_weights" role="hidden"
@memoized
def weights_reference(scores, allowed=None):
    return tol.softmax(scores, torch.zeros_like(scores, dtype=torch.float64), allowed)


def hands_a_mask(call):
    """Whether this call of attention_weights has a mask to hand to apply_mask."""
    return (call.args[1] if len(call.args) > 1 else call.kwargs.get("mask")) is not None


# attention_weights builds on the student's apply_mask (the handout says to): a mistake there is charged in
# apply_mask, once (grading/callees.py); what attention_weights does with the masked scores is judged here.
APPLY_MASK = Callee("apply_mask", judge=lambda got, args, what: check_masked_scores(got, args[0], allowed_by(*args),
                                                                                    what),
                    then=lambda masked, args: torch.softmax(masked, dim=-1), applies=hands_a_mask)


@pytest.mark.question("attention_weights")
@pytest.mark.points(1)
@pytest.mark.tags("softmax over wrong dim")
def test_attention_weights_softmax(student):
    """attention_weights is a softmax over the keys (last dim): rows sum to 1"""
    sizes = dict.fromkeys((B, T_q, T_k) for B, T_q, T_k, _ in [*SHAPES, *EDGE_SHAPES, *space.edge_sizes()])
    calls = [(Call("attention_weights", (randn(*size, seed=15 + n),)), check_softmax) for n, size in enumerate(sizes)]
    judge_sequence(student, stateful(calls, stirring("attention_weights")))


def check_softmax(got, args, what):
    want = weights_reference(args[0])
    got = expect.within(got, want, what, "Each query's weights are the softmax of its scores over the keys (the last "
                        "dimension).")
    expect.rows_sum_to_one(got, what, "Each query's weights sum to 1 over the keys (the last dimension).", want)


@pytest.mark.question("attention_weights")
@pytest.mark.points(1)
@pytest.mark.tags("mask after softmax", "inverted mask", "small fill value")
def test_attention_weights_mask(student):
    """With every mask form, forbidden keys get weight exactly 0 and rows still sum to 1"""
    calls = mask_calls("attention_weights", 16, 41, check_masked_weights)
    # Forbidden keys also carry the largest scores; 1000 overflows exp(), so zeroing and renormalising
    # after the softmax shows up as NaN instead of slipping through.
    scores, mask, allowed, _ = mask_probes(16)[0]
    calls += [(Call("attention_weights", (scores.masked_fill(~allowed, huge), mask),
                    note=f"a bool mask, forbidden scores {huge:g}"), check_masked_weights) for huge in (30.0, 1000.0)]
    calls += [(Call("attention_weights", (scores, random_mask(seed, 3, 4, 6)), note=f"the {which} of two different "
                    "masks of the same shape"), check_masked_weights) for seed, which in ((17, "first"), (18, "second"))]
    judge_sequence(student, stateful(calls, stirring("attention_weights")), (APPLY_MASK,))


def check_masked_weights(got, args, what):
    scores, mask = args
    allowed = allowed_by(scores, mask)
    got = expect.shape(got, tuple(scores.shape), what)
    want = weights_reference(scores, allowed)
    expect.masked_are_zero(got, allowed, what, MASK_HINT)
    expect.rows_sum_to_one(got, what, "", want)
    expect.within(got, want, what, "Each call has its own mask, and its weights follow that mask.")


@pytest.mark.question("attention_weights")
@pytest.mark.points(1)
@pytest.mark.tags("graph cut")
def test_attention_weights_gradients(student):
    """Gradients flow from the weights back to the scores (softmax stays in the graph)"""
    scores, seed = inputs(19, (2, 3, 5), (2, 3, 5))
    reply = student.run("attention_weights", scores, grad_args=(0,), backward={"grad": seed})
    grad = expect.grad_present(reply.arg_grads.get("0"), "the scores", "This check asks for the gradient of the "
                               "weights with respect to the scores.")
    expect.gradient_within(grad, tol.softmax_backward(*weights_reference(scores), seed), "the gradient with respect to the "
                  "scores", "This check compares it with the gradient of the softmax over the keys.")


@pytest.mark.question("attention_weights")
@pytest.mark.points(1)
@pytest.mark.tags("unstable softmax")
def test_attention_weights_large_scores(student):
    """Large scores such as [1000, 999, 0] give finite, correct weights"""
    scores = torch.tensor([[[1000.0, 999.0, 0.0, 998.5], [-1000.0, 0.0, 1000.0, 990.0]]])
    expect.within(student.call("attention_weights", scores), weights_reference(scores),
                  "attention_weights of [1000, 999, 0, 998.5]", "Scores here are in the thousands (exp() of such a "
                  "score is beyond float32); the weights must still be finite and right.")

# %% [markdown] exercise="causal_mask"
# ## 7. Causal mask
#
# In decoder self-attention, query $i$ may look at keys $j \le i$ only: no future leakage.
#
# $$\text{mask}_{ij} = [\, j \le i \,]$$
#
# Return a `(T, T)` mask that allows (1/`True`) the keys on and below the diagonal (`torch.tril`). A bool
# mask is the usual choice; a 0/1 float mask built as in the lesson works too, since every function here
# reads "0 = forbidden".

# %% exercise="causal_mask" role="solution"
def causal_mask(T):
    """(T, T) mask, True (or 1) where key j <= query i (allowed), False (or 0) for future keys."""
    # BEGIN SOLUTION
    return torch.tril(torch.ones(T, T, dtype=torch.bool))
    # END SOLUTION

# %% exercise="causal_mask" role="public"
@test_case(points=None, hidden=False)
def test_causal_mask(causal_mask):
    import torch
    mask = causal_mask(3)
    assert tuple(mask.shape) == (3, 3), f"the mask should be (T, T) = (3, 3), got {tuple(mask.shape)}"
    assert mask.dtype == torch.bool or bool(((mask == 0) | (mask == 1)).all()), "the mask should be bool or 0/1"
    expected = torch.tensor([[True, False, False], [True, True, False], [True, True, True]])
    assert torch.equal(mask.bool(), expected), (
        f"query i may see keys j <= i: True on and below the diagonal, {expected.tolist()}; got {mask.tolist()}."
        + known_mistake("test_causal_mask", 0, mask))

# %% exercise="causal_mask" role="hidden"
@pytest.mark.question("causal_mask")
@pytest.mark.points(2)
@pytest.mark.tags("inverted mask", "future leakage")
def test_causal_mask(student):
    """causal_mask(T) is a (T, T) mask, bool or 0/1, allowing exactly the keys j <= i"""
    calls = [(Call("causal_mask", (T,)), check_causal) for T in (4, 1, 7, *space.edge_T())]
    judge_sequence(student, stateful(calls, stirring("causal_mask")))


def check_causal(got, args, what):
    (T,) = args
    got = expect.mask(got, (T, T), what)
    want = torch.ones(T, T, dtype=torch.bool).tril()
    if not torch.equal(got, want):
        raise StudentFault(f"{what} is wrong: query i may attend exactly to the keys j <= i (True or 1 on and below "
                           f"the diagonal, False or 0 above it), but it allows {int((got & ~want).sum())} keys j > i "
                           f"and forbids {int((want & ~got).sum())} keys j <= i.")

# %% [markdown] exercise="padding_mask"
# ## 8. Padding mask
#
# Sequences in a batch have different lengths; positions past a sequence's length are PAD and must not be
# attended to. With `lengths[b]` real tokens in item $b$:
#
# $$\text{mask}_{b,1,j} = [\, j < \text{lengths}_b \,]$$
#
# Shape `(B, 1, T_k)`: the `1` broadcasts over the queries, because every query must ignore the same keys.
# As for the causal mask, bool or 0/1 numbers are both fine.

# %% exercise="padding_mask" role="solution"
def padding_mask(lengths, T_k):
    """(B, 1, T_k) mask, True (or 1) where key j < lengths[b], False (or 0) for padding.

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
    """padding_mask(lengths, T_k) is a (B, 1, T_k) mask, bool or 0/1, allowing the keys j < lengths[b]"""
    cases = [([3, 7, 1], 7), ([2], 5), ([4, 4], 6), *space.edge_lengths()]
    calls = [(Call("padding_mask", (torch.tensor(lengths), T_k), note=f"lengths {lengths}"), check_padding)
             for lengths, T_k in cases]
    judge_sequence(student, stateful(calls, stirring("padding_mask")))


def check_padding(got, args, what):
    lengths, T_k = args
    got = expect.mask(got, (len(lengths), 1, T_k), what, "The mask is (B, 1, T_k): the middle 1 broadcasts over "
                      "queries, so every query ignores the same padded keys.")
    want = (torch.arange(T_k)[None, :] < lengths[:, None]).unsqueeze(1)
    if not torch.equal(got, want):
        raise StudentFault(f"{what} is wrong: key j is allowed (True or 1) when j < lengths[b].")

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
    assert torch.isfinite(entropy).all(), "a weight of exactly 0 gave nan: the entropy counts 0 log 0 as 0"
    assert torch.allclose(entropy, torch.tensor([math.log(4), 0.0]), atol=1e-6), (
        f"uniform over 4 keys has entropy ln 4 = 1.386 nats and one-hot has 0, got {entropy.tolist()}: "
        "H = -sum_j p_j ln p_j, in nats.")

# %% exercise="softmax_entropy" role="hidden"
@pytest.mark.question("softmax_entropy")
@pytest.mark.points(2)
@pytest.mark.tags("entropy wrong base or sign", "softmax over wrong dim")
def test_softmax_entropy_values(student):
    """softmax_entropy gives the entropy in nats per row, shape weights.shape[:-1]"""
    shapes = [(3, 5, 7), (2, 4), (1, 1, 6), *space.edge_ranks()]
    calls = [(Call("softmax_entropy", (torch.softmax(inputs(17 + n, shape)[0].double() * 2, dim=-1).float(),)),
              check_entropy) for n, shape in enumerate(shapes)]
    judge_sequence(student, stateful(calls, stirring("softmax_entropy")))


def check_entropy(got, args, what):
    expect.within(got, entropy_reference(args[0]), what, "H = -sum_j p_j ln p_j over the last dim, in nats (natural log), "
                  "one value per row: weights.shape[:-1] (weights may have any number of leading dimensions).")


@pytest.mark.question("softmax_entropy")
@pytest.mark.points(1)
@pytest.mark.tags("0 log 0")
def test_softmax_entropy_zeros(student):
    """softmax_entropy treats 0 log 0 as 0, so masked keys give finite values"""
    weights = torch.tensor([[[1.0, 0.0, 0.0], [0.5, 0.5, 0.0], [0.0, 0.25, 0.75]]])
    expect.within(student.call("softmax_entropy", weights), tol.entropy(weights),
                  "softmax_entropy with zero weights", "H = -sum_j p_j ln p_j with 0 ln 0 = 0, on "
                  "rows that hold zero weights.")

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
from autograder.grading.faults import ExplainedElsewhere  # noqa: E402 - this question's own rule (Experiment)


@memoized
def entropy_reference(weights):
    return tol.entropy(weights)


SATURATION_DIMS = (8, 64, 256)


def saturation_inputs(d):
    # 512 query rows against 16 keys: the entropy SD across seeds is about 0.023 nats, well inside the
    # 0.1-nat margins below. The child rebuilds these from their seeds; the parent makes the same tensors.
    return randn(16, 32, d, seed=100 + d), randn(16, 16, d, seed=200 + d)


class Experiment:
    """The saturation experiment, run through the student's own functions, stage by stage, and judged by what it
    shows: raw-score entropy falls as d_k grows, scaled-score entropy stays put, the gradient through softmax
    shrinks. Nothing here is to implement, so nothing here charges a function's mistake (one mistake, one charge:
    README):

    - a stage that gives other values than the reference (a transposed score, entropy in bits) is judged by the
      behaviour its values show, not by equality; a stage that changes its inputs in place is not charged here
      (`inputs_may_change`), its own question charges that;
    - when the behaviour does not show and a stage differs from the reference on the experiment's inputs, the
      failure is that stage's mistake: ExplainedElsewhere names its question, and the check is charged only if
      that question lost no points;
    - a stage that gives no answer (an error, a crash, a time-out) leaves nothing to judge: the check fails exactly
      as it does for a stage left as the stub, so no failure earns more than leaving it unwritten. A forward pass
      whose graph is cut (proved by the backward pass's error) did answer: the missing gradient is its mistake.
    """

    def __init__(self, student, made):
        self.student, self.made = student, made
        self.off = {}  # stage -> how it differs from the reference on the experiment's inputs
        self.ready = []  # (name, args, reply) fetched ahead in one round trip (prefetch)

    def prefetch(self, name, many):
        """`name` on each args of `many` in one round trip, for the stages that follow (`stage` takes each reply
        for the very same args). Where one of them fails, nothing is kept: each stage then asks on its own, and
        meets its failure as it would have."""
        try:
            replies = self.student.runs([run_request(name, *args) for args in many], inputs_may_change=True)
        except StudentFault:
            return
        self.ready = [(name, args, reply) for args, reply in zip(many, replies)]

    def _fetched(self, name, args):
        for index, (ready_name, ready_args, reply) in enumerate(self.ready):
            if ready_name == name and len(ready_args) == len(args) and all(
                    a is b or (isinstance(a, dict) and a == b) for a, b in zip(ready_args, args)):  # seeds: by value
                del self.ready[index]
                return self.student.judging(reply)
        return None

    def stage(self, name, args, reference, grad_reference=None, **run):
        try:
            reply = (None if run else self._fetched(name, args)) or \
                self.student.run(name, *args, inputs_may_change=True, **run)
            got = expect.as_tensor(reply.output, f"{name} on the experiment's inputs")
        except StudentFault as fault:
            if not fault.attempted:
                raise  # a stub: finish that exercise first
            if grad_reference is not None and "does not require grad and does not have a grad_fn" in str(fault) \
                    and self.answers(name, args):
                self.off.setdefault(name, "its result has no gradient history: the graph is cut")
                return None
            raise StudentFault(f"this experiment runs on your own functions, and {name} gave no usable answer "
                               f"on its inputs ({fault}), so there is nothing to judge; its own question says "
                               "what is wrong.") from None
        try:
            expect.within(got, reference, f"{name} on the experiment's inputs")
            if grad_reference is None:
                return got.float()
            grad = expect.grad_present(reply.arg_grads.get("0"), f"the scores through {name}")
            return expect.gradient_within(grad, grad_reference, f"the gradient through {name}").float()
        except StudentFault as fault:
            self.off.setdefault(name, str(fault).split(". ")[0])
        if grad_reference is None:
            return got.float()
        grad = reply.arg_grads.get("0")  # a wrong gradient is judged by what it shows; a missing one shows nothing
        return grad.float() if isinstance(grad, torch.Tensor) and grad.shape == args[0].shape else None

    def answers(self, name, args):
        """Does `name` give a tensor on these inputs without a backward pass? (Then a failed backward is a cut graph.)"""
        try:
            return isinstance(self.student.run(name, *args, inputs_may_change=True, record=False).output, torch.Tensor)
        except StudentFault:
            return False

    def scores(self, name, d):
        Q, K = (self.made(spec) for spec in saturation_inputs(d))
        ref = scores_reference(Q, K, d ** -0.5 if name == "scaled_dot_scores" else 1.0)
        return self.stage(name, saturation_inputs(d), ref)

    def entropies(self, name, dims):
        """The mean entropy of the weights of `name`'s scores at each d_k of `dims`: each stage's calls for every
        d_k in one round trip (prefetch)."""
        self.prefetch(name, [saturation_inputs(d) for d in dims])
        scores = [self.scores(name, d) for d in dims]
        self.prefetch("attention_weights", [(s,) for s in scores])
        weights = [self.stage("attention_weights", (s,), weights_reference(s)) for s in scores]
        self.prefetch("softmax_entropy", [(w,) for w in weights])
        return [self.stage("softmax_entropy", (w,), tol.entropy(w)).double().mean().item() for w in weights]

    def not_shown(self, message):
        """The behaviour did not show: the failure of the stages that differ from the reference, if any."""
        if self.off:
            where = "; ".join(f"{name}: {how}" for name, how in self.off.items())
            raise ExplainedElsewhere(f"{message} On the experiment's inputs your functions differ from the "
                                     f"reference ({where}).", questions=tuple(self.off))
        raise StudentFault(message)


@memoized  # the same for every student: made once per grading process
def seeded_made(spec):
    from autograder.sandbox.child.inputs import seeded_randn
    return seeded_randn(spec["$randn"]["shape"], spec["$randn"]["seed"])


@pytest.mark.question("saturation")
@pytest.mark.points(1)
@pytest.mark.tags("saturation")
def test_entropy_falls_for_raw_scores_only(student, saturation_reference):
    """Raw-score entropy falls as d_k grows (8 -> 64 -> 256); scaled-score entropy stays put"""
    run = Experiment(student, seeded_made)
    raw = run.entropies("dot_scores", SATURATION_DIMS)
    scaled = run.entropies("scaled_dot_scores", SATURATION_DIMS)
    story = (f"Mean entropy (nats) for d_k = 8/64/256: raw {', '.join(f'{h:.3f}' for h in raw)}; scaled "
             f"{', '.join(f'{h:.3f}' for h in scaled)} (reference raw {saturation_reference['raw']}, scaled "
             f"{saturation_reference['scaled']}).")
    missed = [text for ok, text in (
        (raw[0] - raw[1] > 0.1, f"from d_k = 8 to 64 it falls by {raw[0] - raw[1]:.3f}, not by more than 0.1"),
        (raw[1] - raw[2] > 0.1, f"from d_k = 64 to 256 it falls by {raw[1] - raw[2]:.3f}, not by more than 0.1"),
        (raw[2] < 0.5, f"at d_k = 256 it is {raw[2]:.3f}, not below 0.5")) if not ok]
    if missed:
        run.not_shown("the raw-score entropy should fall towards 0 as d_k grows, but " + "; ".join(missed) + ". "
                      + story)
    if not abs(scaled[2] - scaled[0]) <= 0.1:
        run.not_shown(f"the scaled-score entropy should stay within 0.1 nats across d_k, but it moves by "
                      f"{abs(scaled[2] - scaled[0]):.3f} from d_k = 8 to 256. " + story)


@pytest.mark.question("saturation")
@pytest.mark.points(1)
@pytest.mark.tags("saturation")
def test_score_gradient_shrinks_when_saturated(student):
    """The gradient through softmax shrinks for raw d_k=256 scores compared with scaled ones"""
    run = Experiment(student, seeded_made)
    norms = {}
    for name in ("dot_scores", "scaled_dot_scores"):
        scores = run.scores(name, 256)
        seed = randn(*scores.shape, seed=7)  # shaped like the student's scores, whatever their layout
        w_ref = weights_reference(scores)
        g_ref = tol.softmax_backward(*w_ref, seeded_made(seed))
        grad = run.stage("attention_weights", (scores,), w_ref, grad_args=(0,), backward={"grad": seed},
                         grad_reference=g_ref, non_leaf=True)  # scores come out of a matmul in a network
        if grad is None:
            run.not_shown(f"no gradient of the right shape reached the {name.split('_')[0]} scores through "
                          "attention_weights, so the experiment cannot measure it.")
        norms[name] = grad.double().norm(dim=-1).median().item()
    ratio = norms["dot_scores"] / norms["scaled_dot_scores"] if norms["scaled_dot_scores"] else float("nan")
    story = f"The median gradient ratio raw/scaled at d_k = 256 is {ratio:.3g} (about 1/87 in the reference)."
    if not ratio < 0.1:
        run.not_shown("at d_k=256 the gradient reaching raw scores should be far smaller than for scaled scores: "
                      "softmax saturation is what makes unscaled attention hard to train. " + story)

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
