"""The attention pipeline in float64, stage by stage, with the wrong versions of each stage that students write.

project -> score -> scale -> mask -> softmax -> mix. The reference is every stage at "right"; a mistake model
is the same pipeline with one stage swapped for a wrong version. Each wrong version is written the way the
mistake is written in code, so that it fails where that code fails (a shape error) and overflows where that
code overflows in float32.
"""
from __future__ import annotations

import math

import torch

RIGHT = "right"
FLOAT32_MAX = torch.finfo(torch.float32).max
FLOAT32_TINY = 2.0 ** -149                 # the smallest float32 above 0
EXP_OVERFLOW = math.log(FLOAT32_MAX)       # exp() above this is inf in float32
EXP_UNDERFLOW = math.log(FLOAT32_TINY)     # exp() below this is 0 in float32


class NotApplicable(Exception):
    """The model cannot say what the mistake gives on this probe (a parameter or size it needs is missing)."""


def last_two_swapped(x: torch.Tensor) -> torch.Tensor:
    return x.transpose(-2, -1)


# score(Q, K): compare every query with every key
SCORES = {
    RIGHT: lambda Q, K: Q @ last_two_swapped(K),
    "k-at-q": lambda Q, K: K @ last_two_swapped(Q),
    "transpose-all-dims": lambda Q, K: Q @ K.permute(*reversed(range(K.dim()))),  # what K.T does on 3-D
    "batch-crosstalk": lambda Q, K: Q @ last_two_swapped(K[0]),
    "scores-queries-only": lambda Q, K: Q @ last_two_swapped(Q),
    "scores-keys-only": lambda Q, K: K @ last_two_swapped(K),
    "k-not-transposed": lambda Q, K: Q @ K,   # runs only where T_k = d_k (a square K)
}
SAME_OPERANDS = {"scores-queries-only": "scores-wrong-operand", "scores-keys-only": "scores-wrong-operand"}
# variants only the search (stages.py) uses: no single-mistake model of them (the registry's) is kept
SEARCH_ONLY = {*SAME_OPERANDS, "log-softmax", "k-not-transposed", "mask-fill-plus-inf"}


def _d_model(d_model: int | None) -> int:
    if d_model is None:
        raise NotApplicable("d_model is known only for the layer")
    return d_model


# the factor the scores are multiplied by, from the keys (and the layer's d_model)
SCALES = {
    RIGHT: lambda K, d_model: 1 / math.sqrt(K.shape[-1]),
    "scale-missing": lambda K, d_model: 1.0,
    "scale-by-dk": lambda K, d_model: 1 / K.shape[-1],
    "scale-sqrt-tk": lambda K, d_model: 1 / math.sqrt(K.shape[-2]),
    "scale-hardcoded": lambda K, d_model: 1 / math.sqrt(64),
    "scale-multiplied": lambda K, d_model: math.sqrt(K.shape[-1]),
    "scale-power-precedence": lambda K, d_model: 1 / K.shape[-1] / 2,         # scores / d_k ** 1/2
    "scale-power-precedence-stored": lambda K, d_model: 1 / (K.shape[-1] ** 1 / 2),  # scale = d_k ** 1/2
    "scale-sqrt-dmodel": lambda K, d_model: 1 / math.sqrt(_d_model(d_model)),
}


def _fill(scores, mask, value):
    if value is None:
        raise NotApplicable("the fill value is fitted from the student's output")
    return scores.masked_fill(mask == 0, value)


# masking applied to the scores, before the softmax: (scores, mask, fill value) -> scores
MASK_BEFORE = {
    RIGHT: lambda s, m, fill: s.masked_fill(m == 0, float("-inf")),
    "mask-inverted": lambda s, m, fill: s.masked_fill(m == 1, float("-inf")),
    "mask-zero-fill": lambda s, m, fill: s * m,
    "mask-added": lambda s, m, fill: s + m,
    "mask-not-applied": lambda s, m, fill: s,
    "mask-fill-plus-inf": lambda s, m, fill: s.masked_fill(m == 0, float("inf")),   # a row with one is NaN
    "mask-small-fill": _fill,
    "mask-first-row": lambda s, m, fill: s.masked_fill((m[:, :1, :] if m.dim() == 3 else m) == 0, float("-inf")),
    "mask-always-causal": lambda s, m, fill: s.masked_fill(
        ~torch.ones(s.shape[-2], s.shape[-1], dtype=torch.bool).tril(), float("-inf")),
}
QUERY_MASKING = ("mask-first-row", "mask-always-causal")  # mistakes of code that is given masks of many kinds


def _renormalised(weights, mask):
    """Zero, then renormalise. Mathematically the right weights, except that float32 has already flushed the
    allowed weights to 0 when a forbidden score is far larger: 0 / 0 = NaN there, as in the student's code."""
    kept = weights.masked_fill(weights < FLOAT32_TINY, 0.0) * mask
    return kept / kept.sum(dim=-1, keepdim=True)


# masking applied to the weights, after the softmax: (weights, mask) -> weights
MASK_AFTER = {
    "mask-after-softmax": lambda w, m: w * m,
    "mask-after-softmax-renormalised": _renormalised,
}


def legacy_softmax_dim(ndim: int) -> int:
    """The dim F.softmax picks when none is given (PyTorch's implicit-dim rule)."""
    return 0 if ndim in (0, 1, 3) else 1


def float32_exp_softmax(scores: torch.Tensor) -> torch.Tensor:
    """exp(s) / sum exp(s) as float32 computes it: exp overflows to inf above ~88.7 and inf / inf is NaN."""
    exps = scores.exp()
    exps = exps.masked_fill(scores > EXP_OVERFLOW, float("inf")).masked_fill(scores < EXP_UNDERFLOW, 0.0)
    total = exps.sum(dim=-1, keepdim=True)
    return exps / total.masked_fill(total > FLOAT32_MAX, float("inf"))


# scores -> weights
SOFTMAX = {
    RIGHT: lambda s: torch.softmax(s, dim=-1),
    "softmax-wrong-dim": lambda s: torch.softmax(s, dim=-2),
    "softmax-dim-1": lambda s: torch.softmax(s, dim=1),  # the same as dim=-2 for 3-D scores
    "softmax-no-dim": lambda s: torch.softmax(s, dim=legacy_softmax_dim(s.dim())),
    "softmax-unstable": float32_exp_softmax,
    "log-softmax": lambda s: torch.log_softmax(s, dim=-1),
}
# stage variants that are another way of writing one mistake
SAME_MISTAKE = {"softmax-dim-1": "softmax-wrong-dim", "scale-power-precedence-stored": "scale-power-precedence",
                **SAME_OPERANDS}


def mistake_of(variant: str) -> str:
    return SAME_MISTAKE.get(variant, variant)


def weigh(scores, mask=None, *, masking=RIGHT, softmax=RIGHT, fill=None, dropout=None):
    """Mask, softmax (and dropout: a (kept, factor) pair fitted from the student's weights)."""
    if mask is not None and masking in MASK_BEFORE:
        scores = MASK_BEFORE[masking](scores, mask, fill)
    weights = SOFTMAX[softmax](scores)
    if mask is not None and masking in MASK_AFTER:
        weights = MASK_AFTER[masking](weights, mask)
    if dropout is not None:
        kept, factor = dropout
        weights = weights * kept * factor
    return weights


def attend(Q, K, V, mask=None, *, scores=RIGHT, scale=RIGHT, mix=RIGHT, order=RIGHT, d_model=None, factor=None,
           **weighing):
    """Score, scale, mask, softmax, mix. mix="transposed" is how code that scored K @ Q^T mixes the values.
    `factor`: a scale factor fitted from the student's output (search.py), in place of the `scale` variant."""
    factor = SCALES[scale](K, d_model) if factor is None else factor
    weights = weigh(SCORES[scores](Q, K) * factor, mask, **weighing)
    mixed = {"queries": Q, "keys": K}.get(mix, V)   # mix="queries": weights @ Q, the wrong tensor mixed
    output = (last_two_swapped(weights) if mix == "transposed" else weights) @ mixed
    return (weights, output) if order == "returns-weights-first" else (output, weights)


# where Q, K and V come from: (input, projection) for each
PROJECTIONS = {
    RIGHT: (("x_q", "W_Q"), ("x_kv", "W_K"), ("x_kv", "W_V")),
    "keys-values-from-xq": (("x_q", "W_Q"), ("x_q", "W_K"), ("x_q", "W_V")),
    "keys-from-xq": (("x_q", "W_Q"), ("x_q", "W_K"), ("x_kv", "W_V")),
    "values-from-xq": (("x_q", "W_Q"), ("x_kv", "W_K"), ("x_q", "W_V")),
    "queries-from-xkv": (("x_kv", "W_Q"), ("x_q", "W_K"), ("x_q", "W_V")),
    "keys-with-wq": (("x_q", "W_Q"), ("x_kv", "W_Q"), ("x_kv", "W_V")),
    "values-with-wk": (("x_q", "W_Q"), ("x_kv", "W_K"), ("x_kv", "W_K")),
}


def weight(params: dict, name: str) -> torch.Tensor:
    if not params or name not in params:
        raise NotApplicable(f"{name} was not set by the probe")
    return params[name]


def project(params, x_q, x_kv, projection=RIGHT):
    """`projection`: a PROJECTIONS name, or a slot written as "K=x_q@W_Q" (one of Q, K, V made otherwise)."""
    sources = {"x_q": x_q, "x_kv": x_kv}
    if projection in PROJECTIONS:
        plan = list(PROJECTIONS[projection])
    else:
        plan = list(PROJECTIONS[RIGHT])
        slot, made = projection.split("=")
        source, name = made.split("@")
        plan["QKV".index(slot)] = (source, name)
    return tuple(sources[source] @ last_two_swapped(weight(params, f"{name}.weight")) for source, name in plan)


def projection_slots() -> dict[str, str]:
    """Each single slot of Q, K, V made from another input or with another weight, by the mistake it makes:
    the named mistakes where one exists, else "projection-swapped"."""
    named = {PROJECTIONS[n]: n for n in PROJECTIONS if n != RIGHT}
    found = {}
    for slot in range(3):
        for source in ("x_q", "x_kv"):
            for name in ("W_Q", "W_K", "W_V"):
                plan = list(PROJECTIONS[RIGHT])
                if plan[slot] == (source, name):
                    continue
                plan[slot] = (source, name)
                if tuple(plan) not in named:
                    found[f"{'QKV'[slot]}={source}@{name}"] = "projection-swapped"
    return found


def layer(params, x_q, x_kv, mask=None, *, projection=RIGHT, **stages):
    """SingleHeadAttention.forward with the probe's parameters: project, then attend."""
    Q, K, V = project(params, x_q, x_kv, projection)
    return attend(Q, K, V, mask, d_model=x_q.shape[-1], **stages)
