"""Float32 error bounds for the reference computations: what a correct float32 answer may differ by.

Why not one rtol/atol for everything: a correct float32 answer is off by rounding, and how much depends
on the size of the numbers and on how sensitive the operation is. A score near 1000 has a spacing of
6e-5, so a softmax over such scores cannot agree to 1e-5 relative (`exp(s - logsumexp(s))` is off by
about |s| * 2^-24 in every weight), and a layer with large projections amplifies the rounding of Q and
K through the scores. A fixed tolerance is then either too tight (it fails correct code) or too loose
(it lets mistakes through elsewhere).

So each reference value comes with a bound computed from the inputs in float64 by the standard
forward error analysis (Higham, "Accuracy and Stability of Numerical Algorithms", ch. 3), with
u = 2^-24 (float32 unit roundoff) and gamma(n) = n u / (1 - n u):

- a dot product of length n, summed in ANY order (loops, einsum, BLAS blocks), is off by at most
  gamma(n) * sum |a_i b_i|, so a matrix product is bounded by gamma(n) * (|A| @ |B|);
- softmax: with score errors |ds_ij| <= D_i in row i, each weight moves by a factor in
  [exp(-2 D_i), exp(2 D_i)]; subtracting the row maximum (or a logsumexp) adds u |s| to D_i, the
  condition of the operation near one-hot rows; exp and the normalising sum add gamma(T_k + 4)
  relatively; weights below float32's smallest normal number (1.2e-38) may be flushed or denormal,
  so that much is allowed absolutely;
- mixing: out = w @ V is off by |dw| @ |V| + |w| @ |dV| + gamma(T_k) |w| @ |V|;
- tanh is 1-Lipschitz: its output moves by at most the input error, plus 2u of its own.

Extra rounding steps (a scale applied before or after the product, a sqrt) are counted by adding a
few steps to n. Every bound is multiplied by SAFETY. Mistakes differ from the reference by orders of
magnitude more (a wrong scale, axis or mask moves values by >= 1e-2), which the seed sweep
(`make sweep`) checks on 200 seeds per probe, together with every correct style passing.
"""
from __future__ import annotations

import torch

from ..sandbox.child import seeded
from .memo import memoized

U = 2.0 ** -24                    # float32 unit roundoff
TINY = torch.finfo(torch.float32).tiny  # smallest normal float32; below it values may flush to 0
SAFETY = 4.0
EXTRA = 4                          # rounding steps allowed on top of a dot product's length


def gamma(n: int) -> float:
    n = n + EXTRA
    return n * U / (1 - n * U)


def f64(t: torch.Tensor) -> torch.Tensor:
    return t.detach().double()


def matmul(A: torch.Tensor, B: torch.Tensor, dA: torch.Tensor | float = 0.0, dB: torch.Tensor | float = 0.0):
    """A @ B in float64 and its float32 error bound, given error bounds dA, dB of the operands."""
    A, B = f64(A), f64(B)
    ref = A @ B
    bound = gamma(A.shape[-1]) * (A.abs() @ B.abs())
    if isinstance(dA, torch.Tensor):
        bound = bound + dA @ (B.abs() + (dB if isinstance(dB, torch.Tensor) else 0))
    if isinstance(dB, torch.Tensor):
        bound = bound + A.abs() @ dB
    return ref, bound


def scaled(ref: torch.Tensor, bound: torch.Tensor, scale: float):
    return ref * scale, bound * abs(scale) + 2 * U * (ref * scale).abs()


def softmax(scores: torch.Tensor, d_scores: torch.Tensor, allowed: torch.Tensor | None = None):
    """Masked softmax over the last dim (allowed: bool, broadcastable) and the bound of each weight."""
    scores, d_scores = f64(scores), f64(d_scores)
    if allowed is not None:
        allowed = allowed.bool().expand(scores.shape)
        scores = scores.masked_fill(~allowed, float("-inf"))
        d_scores = d_scores.masked_fill(~allowed, 0.0)
    weights = torch.softmax(scores, dim=-1)
    finite = scores.masked_fill(~torch.isfinite(scores), 0.0)
    drift = d_scores.amax(dim=-1, keepdim=True) + 2 * U * finite.abs().amax(dim=-1, keepdim=True)
    bound = weights * (torch.expm1(2 * drift) + gamma(scores.shape[-1])) + TINY
    if allowed is not None:
        bound = bound.masked_fill(~allowed, 0.0)  # masked weights must be exactly 0: no slack at all
    return weights, bound


def mix(weights: torch.Tensor, d_weights: torch.Tensor, V: torch.Tensor, dV: torch.Tensor | float = 0.0):
    out, bound = matmul(weights, V, d_weights, dV)
    return out, bound


@memoized
def attention(Q, K, V, allowed=None, scale=None, dQ=0.0, dK=0.0, dV=0.0):
    """Reference (output, weights) of softmax(Q K^T * scale) V and their bounds."""
    scale = K.shape[-1] ** -0.5 if scale is None else scale
    s, ds = matmul(Q, f64(K).transpose(-2, -1), dQ, dK.transpose(-2, -1) if isinstance(dK, torch.Tensor) else dK)
    s, ds = scaled(s, ds, scale)
    w, dw = softmax(s, ds, allowed)
    out, dout = mix(w, dw, V, dV)
    return (out, dout), (w, dw)


def softmax_backward(w, dw, g, dg: torch.Tensor | float = 0.0):
    """dL/ds = w * (g - sum_j w_j g_j) for upstream gradient g of the weights w, and its bound."""
    w, g = f64(w), f64(g)
    r = (w * g).sum(-1, keepdim=True)
    dr = (dw * g.abs() + w * dg).sum(-1, keepdim=True) + gamma(w.shape[-1]) * (w * g.abs()).sum(-1, keepdim=True)
    gs = w * (g - r)
    return gs, dw * (g - r).abs() + w * (dg + dr) + 2 * U * gs.abs() + TINY


@memoized
def attention_grad_q(Q, K, V, seed, allowed=None, scale=None):
    """d(sum(seed * output)) / dQ for attention, and its bound (the backward of the steps above)."""
    scale = K.shape[-1] ** -0.5 if scale is None else scale
    (_, _), (w, dw) = attention(Q, K, V, allowed, scale)
    g, dg = matmul(seed, f64(V).transpose(-2, -1))          # dL/dw
    gs, dgs = softmax_backward(w, dw, g, dg)                  # dL/ds
    grad, dgrad = matmul(gs, f64(K), dgs)
    return grad * scale, dgrad * abs(scale) + U * (grad * scale).abs()


def entropy(p):
    """-sum_j p_j ln p_j (0 ln 0 = 0) of float32 rows and its bound: rounding of each term and of the sum,
    plus a renormalisation (rows sum to 1 only up to T u) that some correct styles do first."""
    p = f64(p)
    terms = -torch.special.xlogy(p, p)
    T = p.shape[-1]
    bound = gamma(T + 2) * (terms.abs().sum(-1) + (p * (p.clamp_min(TINY).log().abs() + 1)).sum(-1))
    return terms.sum(-1), bound + TINY


@memoized
def linear(x, W, dx: torch.Tensor | float = 0.0):
    """x @ W^T (an nn.Linear without bias) and its bound."""
    return matmul(x, f64(W).transpose(-2, -1), dx)


def inside(got: torch.Tensor, ref: torch.Tensor, bound: torch.Tensor) -> bool:
    """Every difference is a number no larger than its bound: then `within` says ok too (a difference and a bound
    of numbers with d <= b give d - b <= 0). False is no verdict: `within` judges the rest (infinities, NaN,
    differences past their bound) and finds the worst one. A third of `within`'s time, for every answer that is
    right."""
    return bool(((f64(got) - f64(ref)).abs() <= SAFETY * f64(bound)).all())


def within(got: torch.Tensor, ref: torch.Tensor, bound: torch.Tensor) -> tuple[bool, float, float]:
    """(ok, worst error, its allowed size). NaN or infinity where the reference is finite fails."""
    got, ref, bound = f64(got), f64(ref), SAFETY * f64(bound)
    error = (got - ref).abs()
    same_inf = torch.isinf(ref) & (got == ref)
    error = torch.where(same_inf, torch.zeros_like(error), error).nan_to_num(float("inf"))
    excess = error - bound
    worst = excess.flatten().argmax()
    return bool((excess <= 0).all()), error.flatten()[worst].item(), bound.flatten()[worst].item()


# Gradients of the score modules (no softmax: products and a tanh, whose float32 backward is not ill-conditioned):
# a float64 autograd reference of the same computation and a bound relative to the gradient's own size. The worst
# float32 error over every correct catalogue style on 40 seeds was 0.54 GRAD_REL (before SAFETY). Wrong gradients
# (a missing scale, a term left out, an input that leaves the graph) are off by a sizeable fraction of the gradient.
# Through a softmax, cancellation makes that too tight: attention and the layer use attention_backward below.
GRAD_REL = 2e-5


def gradients(fn, tensors: list, seed: torch.Tensor) -> list:
    """[(gradient, bound)] of sum(seed * fn(*tensors)) with respect to each tensor, computed in float64."""
    xs = [f64(t).requires_grad_(True) for t in tensors]
    out = fn(*xs)
    grads = seeded.grad(out, xs, f64(seed), allow_unused=True)  # torch.autograd.grad, without sympy
    result = []
    for x, g in zip(xs, grads):
        g = torch.zeros_like(x) if g is None else g.detach()
        size = g.pow(2).mean().sqrt()
        result.append((g, GRAD_REL * (g.abs() + size) + TINY))
    return result


@memoized
def attention_backward(Q, K, V, seed, allowed=None, scale=None, dQ=0.0, dK=0.0, dV=0.0):
    """Gradients of sum(seed * output) for attention with respect to Q, K and V, each with its bound, given the
    bounds dQ, dK, dV of the operands (from a projection): the backward of the steps of attention() above."""
    scale = K.shape[-1] ** -0.5 if scale is None else scale
    (_, _), (w, dw) = attention(Q, K, V, allowed, scale, dQ, dK, dV)
    mT = lambda x: x.transpose(-2, -1) if isinstance(x, torch.Tensor) else x  # noqa: E731
    g, dg = matmul(seed, f64(V).transpose(-2, -1), 0.0, mT(dV))                # dL/dw
    gs, dgs = softmax_backward(w, dw, g, dg)                                     # dL/ds
    gQ, dgQ = scaled(*matmul(gs, f64(K), dgs, dK), scale)
    gK, dgK = scaled(*matmul(gs.transpose(-2, -1), f64(Q), dgs.transpose(-2, -1), dQ), scale)
    gV, dgV = matmul(w.transpose(-2, -1), f64(seed), dw.transpose(-2, -1))
    return (gQ, dgQ), (gK, dgK), (gV, dgV)


def batch_sum(ref: torch.Tensor, bound: torch.Tensor):
    """Sum over the batch (a parameter's gradient adds every item's) and its bound."""
    return ref.sum(0), bound.sum(0) + gamma(ref.shape[0]) * ref.abs().sum(0)


@memoized
def layer_backward(x_q, x_kv, W_Q, W_K, W_V, seed, allowed=None):
    """Gradients of sum(seed * output) of the single-head layer with respect to x_q, x_kv, W_Q, W_K, W_V."""
    (Q, dQ), (K, dK), (V, dV) = linear(x_q, W_Q), linear(x_kv, W_K), linear(x_kv, W_V)
    (gQ, dgQ), (gK, dgK), (gV, dgV) = attention_backward(Q, K, V, seed, allowed, None, dQ, dK, dV)
    x_q, x_kv = f64(x_q), f64(x_kv)
    d_xq = matmul(gQ, f64(W_Q), dgQ)
    via_k, via_v = matmul(gK, f64(W_K), dgK), matmul(gV, f64(W_V), dgV)
    d_xkv = (via_k[0] + via_v[0], via_k[1] + via_v[1] + U * (via_k[0] + via_v[0]).abs())
    grads_W = [batch_sum(*matmul(g.transpose(-2, -1), x, d.transpose(-2, -1)))
               for g, d, x in ((gQ, dgQ, x_q), (gK, dgK, x_kv), (gV, dgV, x_kv))]
    return [d_xq, d_xkv, *grads_W]
