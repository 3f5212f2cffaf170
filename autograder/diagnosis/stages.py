"""Each target as its pipeline of stages, with every stage's plausible variants: the mistake space that
search.py explores in combinations (a mistake in the scale and another in the softmax, say).

A Variant is one way of writing one stage: the mistake id it makes (catalog.py) and the keyword arguments that
make the float64 pipeline (pipeline.py, scores_models.py) compute it. A variant whose `factor` is FITTED has a
free scale read from the student's output (search.py fits it, then the whole output must agree with it).
The right way of writing each stage is the pipeline's default, so it is not listed.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import torch

from .pipeline import (MASK_AFTER, MASK_BEFORE, PROJECTIONS, RIGHT, SCALES, SCORES, SOFTMAX, attend, layer,
                       mistake_of, projection_slots, weigh)

FITTED = "fitted"   # the value of a `factor` keyword that search.py reads from the student's output
FITTED_SCALE = "scale-wrong-factor"


@dataclass(frozen=True)
class Variant:
    mistake: str
    kwargs: dict = field(default_factory=dict)

    @property
    def fitted(self) -> bool:
        return FITTED in self.kwargs.values()


@dataclass(frozen=True)
class Pipeline:
    target: str
    stages: dict[str, list[Variant]]            # stage name -> its wrong variants
    run: Callable[..., object]                  # (float64 probe, **kwargs of the chosen variants) -> output
    raw_scores: Callable[..., torch.Tensor] | None = None   # (probe, **kwargs) -> scores before the scale


def variants(names, mistake=mistake_of, key: str | None = None) -> list[Variant]:
    return [Variant(mistake(n), {key: n}) for n in names if n != RIGHT]


SCORE_STAGE = variants(SCORES, key="scores") + [Variant("k-at-q", {"scores": "k-at-q", "mix": "transposed"})]
MIX_STAGE = [Variant("mix-wrong-operand", {"mix": "queries"}), Variant("mix-wrong-operand", {"mix": "keys"})]
FITTED_SCALE_VARIANT = Variant(FITTED_SCALE, {"factor": FITTED})
ATTENTION_SCALE = variants([n for n in SCALES if n != "scale-sqrt-dmodel"], key="scale") + [FITTED_SCALE_VARIANT]
MASKING_STAGE = variants([n for n in list(MASK_BEFORE) + list(MASK_AFTER) if n != "mask-small-fill"],
                         key="masking")
SOFTMAX_STAGE = variants(SOFTMAX, key="softmax")
ORDER_STAGE = [Variant("returns-weights-first", {"order": "returns-weights-first"})]


def attention_scores(probe, scores=RIGHT, **_):
    Q, K = probe.args[:2]
    return SCORES[scores](Q, K)


def layer_scores(probe, scores=RIGHT, projection=RIGHT, **_):
    from .pipeline import project  # noqa: PLC0415 - kept beside its only use
    Q, K, _ = project(probe.params, *probe.args[:2], projection)
    return SCORES[scores](Q, K)


# --- the "Attention Score" assignment ------------------------------------------------------------------

def scaled_dot(probe, scores=RIGHT, scale=RIGHT, factor=None, mix=RIGHT):
    Q, K = probe.args[:2]
    return SCORES[scores](Q, K) * (SCALES[scale](K, None) if factor is None else factor)


def weights_of_scores(probe, **kwargs):
    scores, mask = (list(probe.args) + [probe.kwargs.get("mask")])[:2]
    return weigh(scores, mask, **kwargs)


def entropy(probe, log="e", sign=RIGHT, reduce=-1, zero=RIGHT):
    (weights,) = probe.args[:1]
    terms = weights * weights.log() if zero == "nan" else torch.special.xlogy(weights, weights)
    terms = terms / math.log({"e": math.e, "2": 2.0, "10": 10.0}[log])
    total = terms.mean(dim=-1) if reduce == "mean" else terms.sum() if reduce == "all" else terms.sum(dim=reduce)
    return total if sign == "missing" else -total


def causal(probe, band=("tril", 0)):
    (T,) = probe.args[:1]
    ones = torch.ones(int(T), int(T), dtype=torch.bool)
    kind, offset = band
    if kind == "ones":
        return ones
    return torch.tril(ones, diagonal=offset) if kind == "tril" else torch.triu(ones, diagonal=offset)


def padding(probe, sense=RIGHT, bound=RIGHT, shape=RIGHT):
    lengths, T_k = probe.args[:2]
    positions = torch.arange(int(T_k))[None, :]
    allowed = positions <= lengths[:, None] if bound == "inclusive" else positions < lengths[:, None]
    if sense == "inverted":
        allowed = ~allowed
    return allowed.unsqueeze(-1) if shape == "over-queries" else allowed.unsqueeze(1)


CAUSAL_BANDS = {("tril", -1): "causal-diagonal-excluded", ("tril", 1): "causal-shifted",
                ("tril", -2): "causal-offset", ("tril", 2): "causal-offset",
                ("triu", 0): "causal-inverted", ("triu", 1): "causal-inverted", ("ones", 0): "causal-not-triangular"}

PIPELINES: dict[str, Pipeline] = {
    "dot_scores": Pipeline("dot_scores", {
        "score": variants(SCORES, key="scores"),
        "scale": [Variant("unwanted-scale", {"scale": RIGHT}), Variant(FITTED_SCALE, {"factor": FITTED})],
    }, lambda p, scale=None, **kw: scaled_dot(p, scale=scale or "scale-missing", **kw), attention_scores),
    "scaled_dot_scores": Pipeline("scaled_dot_scores", {
        "score": variants(SCORES, key="scores"),
        "scale": ATTENTION_SCALE,
    }, scaled_dot, attention_scores),
    "attention_weights": Pipeline("attention_weights", {
        "masking": MASKING_STAGE, "softmax": SOFTMAX_STAGE,
    }, weights_of_scores),
    "softmax_entropy": Pipeline("softmax_entropy", {
        "log": [Variant("entropy-in-bits", {"log": "2"}), Variant("entropy-log10", {"log": "10"})],
        "sign": [Variant("entropy-missing-minus", {"sign": "missing"})],
        "reduce": [Variant("entropy-wrong-dim", {"reduce": 0}), Variant("entropy-wrong-dim", {"reduce": -2}),
                   Variant("entropy-wrong-dim", {"reduce": "all"}), Variant("entropy-mean", {"reduce": "mean"})],
        "zero": [Variant("entropy-nan-at-zero", {"zero": "nan"})],
    }, entropy),
    "causal_mask": Pipeline("causal_mask", {
        "band": [Variant(mistake, {"band": band}) for band, mistake in CAUSAL_BANDS.items()],
    }, causal),
    "padding_mask": Pipeline("padding_mask", {
        "sense": [Variant("padding-inverted", {"sense": "inverted"})],
        "bound": [Variant("padding-off-by-one", {"bound": "inclusive"})],
        "shape": [Variant("padding-over-queries", {"shape": "over-queries"})],
    }, padding),
    # --- the "Attention" assignment ---------------------------------------------------------------
    "attention": Pipeline("attention", {
        "score": SCORE_STAGE, "scale": ATTENTION_SCALE, "masking": MASKING_STAGE, "softmax": SOFTMAX_STAGE,
        "mix": MIX_STAGE, "order": ORDER_STAGE,
    }, lambda p, **kw: attend(*p.args, **p.kwargs, **kw), attention_scores),
    "SingleHeadAttention": Pipeline("SingleHeadAttention", {
        "projection": variants(PROJECTIONS, key="projection")
                      + [Variant(m, {"projection": slot}) for slot, m in projection_slots().items()],
        "score": SCORE_STAGE,
        "scale": variants(SCALES, key="scale") + [FITTED_SCALE_VARIANT],
        "masking": MASKING_STAGE, "softmax": SOFTMAX_STAGE, "mix": MIX_STAGE, "order": ORDER_STAGE,
    }, lambda p, **kw: layer(p.params, *p.args, **p.kwargs, **kw), layer_scores),
}


def pipeline_for(target: str) -> Pipeline | None:
    return PIPELINES.get(target)
