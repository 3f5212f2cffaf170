"""Mistake models for the "Attention Score" assignment: score functions, masks, softmax and entropy.

Each model is the float64 version of a wrong implementation, with the student function's signature.
"""
from __future__ import annotations

import functools
import math

import torch

from . import fits
from .model import function_model, module_model
from .pipeline import (MASK_AFTER, MASK_BEFORE, QUERY_MASKING, RIGHT, SCALES, SCORES, SEARCH_ONLY, SOFTMAX, mistake_of,
                       weigh, weight)


# --- dot and scaled dot-product scores ---------------------------------------------------------------

def scaled(Q, K, scores=RIGHT, scale=RIGHT):
    return SCORES[scores](Q, K) * SCALES[scale](K, None)


SCORE_VARIANTS = [name for name in SCORES if name != RIGHT and name not in SEARCH_ONLY]
SCALE_VARIANTS = [name for name in SCALES if name not in (RIGHT, "scale-sqrt-dmodel")]

DOT = [function_model("dot_scores", name, SCORES[name]) for name in SCORE_VARIANTS]
DOT.append(function_model("dot_scores", "unwanted-scale", functools.partial(scaled, scale=RIGHT)))
SCALED = [function_model("scaled_dot_scores", name, functools.partial(scaled, scores=name)) for name in SCORE_VARIANTS]
SCALED += [function_model("scaled_dot_scores", mistake_of(name), functools.partial(scaled, scale=name))
           for name in SCALE_VARIANTS]


# --- Luong general and Bahdanau additive scores ------------------------------------------------------

def general(params, Q, K, variant=RIGHT, bias=None):
    W = weight(params, "W.weight")                                 # (d_q, d_k), as nn.Linear(d_k, d_q) stores it
    if variant == "w-transposed":
        return Q @ (K @ W).transpose(-2, -1)                  # K @ self.W.weight: W^T k_j
    if variant == "w-on-queries":
        return torch.nn.functional.linear(Q, W) @ K.transpose(-2, -1)  # self.W(Q)
    scores = Q @ (K @ W.T).transpose(-2, -1)
    return scores if bias is None else scores + (Q @ bias).unsqueeze(-1)


def general_bias_fit(probe, output):
    Q, K = probe.args[:2]
    return fits.general_bias(Q, general(probe.params, Q, K), output)


def additive(params, Q, K, variant=RIGHT):
    q = Q @ weight(params, "W_q.weight").T                         # (B, T_q, d_h)
    k = K @ weight(params, "W_k.weight").T                         # (B, T_k, d_h)
    if variant == "additive-axes-swapped":
        q, k = q.unsqueeze(1), k.unsqueeze(2)                 # (B, T_k, T_q, d_h) after the sum
    else:
        q, k = q.unsqueeze(2), k.unsqueeze(1)
    hidden = {"additive-no-tanh": lambda x: x, "additive-relu": torch.relu}.get(variant, torch.tanh)(q + k)
    scores = hidden @ weight(params, "v.weight").T
    return scores.squeeze() if variant == "bare-squeeze" else scores.squeeze(-1)


# self.W(Q) @ K^T and Q @ (K @ self.W.weight)^T are both q^T W^T k (and both fail when d_q != d_k)
GENERAL = [module_model("GeneralScore", "w-transposed", functools.partial(general, variant=name))
           for name in ("w-transposed", "w-on-queries")]
GENERAL.append(module_model("GeneralScore", "projection-bias", general, fit=general_bias_fit))
ADDITIVE = [module_model("AdditiveScore", name, functools.partial(additive, variant=name))
            for name in ("additive-no-tanh", "additive-relu", "additive-axes-swapped", "bare-squeeze")]


# --- masks and weights -------------------------------------------------------------------------------

def apply_mask(scores, mask, masking=RIGHT, fill=None):
    return MASK_BEFORE[masking](scores, mask, fill)


def attention_weights(scores, mask=None, **stages):
    return weigh(scores, mask, **stages)


def weights_fill_fit(probe, output):
    scores, mask = (list(probe.args) + [probe.kwargs.get("mask")])[:2]
    return None if mask is None else fits.fill_in_weights(scores, mask, output)


def weights_dropout_fit(probe, output):
    return fits.dropout(attention_weights(*probe.args, **probe.kwargs), output)


MASKING_VARIANTS = [name for name in MASK_BEFORE
                    if name not in (RIGHT, "mask-small-fill") + QUERY_MASKING and name not in SEARCH_ONLY]
APPLY_MASK = [function_model("apply_mask", name, functools.partial(apply_mask, masking=name))
              for name in MASKING_VARIANTS]
APPLY_MASK.append(function_model("apply_mask", "mask-small-fill",
                                 functools.partial(apply_mask, masking="mask-small-fill"),
                                 fit=lambda p, out: fits.fill_in_scores(*p.args[:2], out)))
WEIGHTS = [function_model("attention_weights", name, functools.partial(attention_weights, masking=name))
           for name in MASKING_VARIANTS + list(MASK_AFTER)]
WEIGHTS += [function_model("attention_weights", mistake_of(name),
                           functools.partial(attention_weights, softmax=name)) for name in SOFTMAX
            if name != RIGHT and name not in SEARCH_ONLY]
WEIGHTS.append(function_model("attention_weights", "mask-small-fill",
                              functools.partial(attention_weights, masking="mask-small-fill"), fit=weights_fill_fit))
WEIGHTS.append(function_model("attention_weights", "dropout-on-weights", attention_weights, fit=weights_dropout_fit))


# --- causal and padding masks ------------------------------------------------------------------------

def causal_mask(T, diagonal=0, upper=False):
    ones = torch.ones(T, T, dtype=torch.bool)
    return torch.triu(ones) if upper else torch.tril(ones, diagonal=diagonal)


def padding_mask(lengths, T_k, variant=RIGHT):
    positions = torch.arange(T_k)
    if variant == "padding-inverted":
        return (positions[None, :] >= lengths[:, None]).unsqueeze(1)
    if variant == "padding-off-by-one":
        return (positions[None, :] <= lengths[:, None]).unsqueeze(1)
    allowed = positions[None, :] < lengths[:, None]
    if variant == "padding-over-queries":
        return allowed.unsqueeze(-1)
    return allowed.unsqueeze(1)


CAUSAL = [function_model("causal_mask", "causal-inverted", functools.partial(causal_mask, upper=True)),
          function_model("causal_mask", "causal-diagonal-excluded", functools.partial(causal_mask, diagonal=-1)),
          function_model("causal_mask", "causal-shifted", functools.partial(causal_mask, diagonal=1))]
PADDING = [function_model("padding_mask", name, functools.partial(padding_mask, variant=name))
           for name in ("padding-inverted", "padding-off-by-one", "padding-over-queries")]


# --- entropy of the weights --------------------------------------------------------------------------

def softmax_entropy(weights, variant=RIGHT):
    terms = weights * weights.log() if variant == "entropy-nan-at-zero" else torch.special.xlogy(weights, weights)
    if variant == "entropy-wrong-dim-0":
        return -terms.sum(dim=0)
    if variant == "entropy-wrong-dim-2":
        return -terms.sum(dim=-2)
    entropy = -terms.sum(dim=-1)
    if variant == "entropy-in-bits":
        return entropy / math.log(2)
    return -entropy if variant == "entropy-missing-minus" else entropy


ENTROPY = [function_model("softmax_entropy", name.rsplit("-", 1)[0] if name[-1].isdigit() else name,
                          functools.partial(softmax_entropy, variant=name))
           for name in ("entropy-in-bits", "entropy-missing-minus", "entropy-wrong-dim-0", "entropy-wrong-dim-2",
                        "entropy-nan-at-zero")]


ASSIGNMENT = "attention_scores"  # the master whose exercises these are: no other assignment's calls use them

REFERENCES = {
    "dot_scores": lambda p: SCORES[RIGHT](*p.args),
    "scaled_dot_scores": lambda p: scaled(*p.args),
    "GeneralScore": lambda p: general(p.params, *p.args),
    "AdditiveScore": lambda p: additive(p.params, *p.args),
    "apply_mask": lambda p: apply_mask(*p.args, **p.kwargs),
    "attention_weights": lambda p: attention_weights(*p.args, **p.kwargs),
    "causal_mask": lambda p: causal_mask(*p.args),
    "padding_mask": lambda p: padding_mask(*p.args),
    "softmax_entropy": lambda p: softmax_entropy(*p.args),
}
MODELS = DOT + SCALED + GENERAL + ADDITIVE + APPLY_MASK + WEIGHTS + CAUSAL + PADDING + ENTROPY
