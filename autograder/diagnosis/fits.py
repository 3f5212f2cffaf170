"""The one free quantity of a fitted mistake model, read from the student's output.

Each fit returns None unless the quantity is well determined by the output and the mistake would show on
this probe; the model must then reproduce the whole output with it (the matcher checks that).
"""
from __future__ import annotations

import torch

from .pipeline import FLOAT32_TINY, weigh

VISIBLE = 1e-6     # a weight above this is clearly there
NEAR_ZERO = 1e-3   # a fill this close to 0 is the "mask-zero-fill" mistake (scores times the mask look the same)


def as_tensor(value: object) -> torch.Tensor | None:
    return value.detach().double() if isinstance(value, torch.Tensor) and value.is_floating_point() else None


def weights_of(output: object) -> torch.Tensor | None:
    """The weights in an (output, weights) pair, or the output itself when it is a tensor."""
    if isinstance(output, (list, tuple)):
        return as_tensor(output[1]) if len(output) == 2 else None
    return as_tensor(output)


def leaks(scores: torch.Tensor, mask: torch.Tensor, fill: float) -> bool:
    """Does filling forbidden scores with `fill` leave a forbidden key any weight float32 can hold, on these
    scores? (The kit's masking rule: a masked key ends with weight exactly 0.)"""
    weights = weigh(scores, mask, masking="mask-small-fill", fill=fill)
    return bool((weights.masked_fill((mask != 0).expand_as(weights), 0) >= FLOAT32_TINY).any())


def same_everywhere(values: torch.Tensor, value: float) -> bool:
    return bool(((values - value).abs() <= 1e-6 * max(1.0, abs(value))).all())


def telling(scores: torch.Tensor, mask: torch.Tensor, fill: float) -> bool:
    """A fill tells something only if it is not ~0 (that is mask-zero-fill), leaks weight, and differs from
    the forbidden scores themselves (scores that are all c already look "filled with c")."""
    forbidden = scores[(mask == 0).expand_as(scores)]
    return abs(fill) >= NEAR_ZERO and not same_everywhere(forbidden, fill) and leaks(scores, mask, fill)


def fill_in_scores(scores: torch.Tensor, mask: torch.Tensor, output: object) -> tuple[dict, str] | None:
    """apply_mask: every forbidden score came back as the same finite number c."""
    got = as_tensor(output)
    forbidden = (mask == 0).expand_as(scores)
    if got is None or got.shape != scores.shape or not forbidden.any():
        return None
    values = got[forbidden]
    if not torch.isfinite(values).all():
        return None
    fill = values.median().item()
    if not same_everywhere(values, fill) or not telling(scores, mask, fill):
        return None
    return {"fill": fill}, f"forbidden scores filled with {fill:.4g}"


def fill_in_weights(scores: torch.Tensor, mask: torch.Tensor, output: object) -> tuple[dict, str] | None:
    """Weights: a forbidden key j and the heaviest allowed key a of its row give c = s_a + log(w_j / w_a)."""
    got = weights_of(output)
    if got is None or got.shape != scores.shape or not torch.isfinite(got).all():
        return None
    allowed = (mask != 0).expand_as(scores)
    anchor_weight, anchor = got.masked_fill(~allowed, -1.0).max(dim=-1, keepdim=True)
    usable = ~allowed & (got > 1e-30) & (anchor_weight > 0)
    if not usable.any():
        return None
    estimates = scores.gather(-1, anchor) + got.clamp_min(1e-300).log() - anchor_weight.clamp_min(1e-300).log()
    fill = estimates[usable].median().item()
    if not telling(scores, mask, fill):
        return None
    return {"fill": fill}, f"forbidden scores filled with about {fill:.3g}"


def dropout(right_weights: torch.Tensor, output: object) -> tuple[dict, str] | None:
    """Dropout: every weight is either exactly 0 or the right weight times one factor 1 / (1 - p) > 1."""
    got = weights_of(output)
    if got is None or got.shape != right_weights.shape or not torch.isfinite(got).all():
        return None
    kept = got != 0
    visible = right_weights > VISIBLE
    dropped, survived = ~kept & visible, kept & visible
    if not dropped.any() or not survived.any():
        return None
    factor = (got[survived] / right_weights[survived]).median().item()
    if not factor > 1.001:
        return None
    note = (f"{int(dropped.sum())} of {int(visible.sum())} weights are exactly 0 and the rest are "
            f"{factor:.3g} times the right ones, as dropout with p = {1 - 1 / factor:.2f} gives")
    return {"dropout": (kept, factor)}, note


def general_bias(Q: torch.Tensor, right_scores: torch.Tensor, output: object) -> tuple[dict, str] | None:
    """GeneralScore with a bias b: e_ij = q_i^T (W k_j + b), i.e. the right score plus q_i . b in every column."""
    got = as_tensor(output)
    if got is None or got.shape != right_scores.shape or not torch.isfinite(got).all():
        return None
    queries = Q.reshape(-1, Q.shape[-1])
    if queries.shape[0] <= queries.shape[1] or right_scores.shape[-1] < 2:
        return None  # too few queries or keys for one b to be evidence
    offset = (got - right_scores)[..., 0].reshape(-1, 1)
    bias = torch.linalg.lstsq(queries, offset).solution.squeeze(-1)
    if bias.abs().max().item() < 1e-4:
        return None
    return {"bias": bias}, f"a bias b with |b| = {bias.norm().item():.3g}"
