"""Mistake models for the "Attention" assignment: the attention function and the single-head layer.

Both are the float64 pipeline (pipeline.py) with one stage swapped; the layer also has its projections.
"""
from __future__ import annotations

import functools

from . import fits
from .model import function_model, module_model
from .pipeline import (MASK_AFTER, MASK_BEFORE, PROJECTIONS, RIGHT, SCALES, SCORES, SEARCH_ONLY, SOFTMAX, mistake_of,
                       attend, layer, project)

# stage -> {variant: mistake id}; every variant is one model, the rest of the pipeline right
STAGES = {
    "scores": {name: name for name in SCORES if name != RIGHT and name not in SEARCH_ONLY},
    "scale": {name: mistake_of(name) for name in SCALES if name not in (RIGHT, "scale-sqrt-dmodel")},
    "masking": {name: name for name in list(MASK_BEFORE) + list(MASK_AFTER) if name not in (RIGHT, "mask-small-fill") and name not in SEARCH_ONLY},
    "softmax": {name: mistake_of(name) for name in SOFTMAX if name != RIGHT and name not in SEARCH_ONLY},
    "order": {"returns-weights-first": "returns-weights-first"},
}


def stage_models(target: str, make, fn, extra: dict | None = None) -> list:
    models = [make(target, mistake, functools.partial(fn, **{stage: variant}))
              for stage, variants in {**STAGES, **(extra or {})}.items() for variant, mistake in variants.items()]
    # code that scores K @ Q^T has (B, T_k, T_q) weights: it may mix with them transposed back
    models.append(make(target, "k-at-q", functools.partial(fn, scores="k-at-q", mix="transposed")))
    return models


def mask_argument(probe, index):
    args = list(probe.args) + [None] * 4
    return probe.kwargs.get("mask", args[index])


# --- attention(Q, K, V, mask=None) -> (output, weights) ----------------------------------------------

def right_attention_scores(probe):
    Q, K = probe.args[:2]
    return SCORES[RIGHT](Q, K) * SCALES[RIGHT](K, None)


def attention_fill_fit(probe, output):
    mask = mask_argument(probe, 3)
    return None if mask is None else fits.fill_in_weights(right_attention_scores(probe), mask, output)


def attention_dropout_fit(probe, output):
    return fits.dropout(attend(*probe.args, **probe.kwargs)[1], output)


ATTENTION = stage_models("attention", function_model, attend)
ATTENTION.append(function_model("attention", "mask-small-fill", functools.partial(attend, masking="mask-small-fill"),
                                fit=attention_fill_fit))
ATTENTION.append(function_model("attention", "dropout-on-weights", attend, fit=attention_dropout_fit))


# --- SingleHeadAttention(d_model, d_k).forward(x_q, x_kv, mask=None) -> (output, weights) ------------

def right_layer_scores(probe):
    Q, K, _ = project(probe.params, *probe.args[:2])
    return SCORES[RIGHT](Q, K) * SCALES[RIGHT](K, None)


def layer_fill_fit(probe, output):
    mask = mask_argument(probe, 2)
    return None if mask is None else fits.fill_in_weights(right_layer_scores(probe), mask, output)


def layer_dropout_fit(probe, output):
    return fits.dropout(layer(probe.params, *probe.args, **probe.kwargs)[1], output)


LAYER = stage_models("SingleHeadAttention", module_model, layer, extra={
    "projection": {name: name for name in PROJECTIONS if name != RIGHT},
    "scale": {name: mistake_of(name) for name in SCALES if name != RIGHT},
})
LAYER.append(module_model("SingleHeadAttention", "mask-small-fill", functools.partial(layer, masking="mask-small-fill"),
                          fit=layer_fill_fit))
LAYER.append(module_model("SingleHeadAttention", "dropout-on-weights", layer, fit=layer_dropout_fit))

ASSIGNMENT = "single_head_attention"  # the master whose exercises these are: no other assignment's calls use them

REFERENCES = {
    "attention": lambda p: attend(*p.args, **p.kwargs),
    "SingleHeadAttention": lambda p: layer(p.params, *p.args, **p.kwargs),
}
MODELS = ATTENTION + LAYER
