"""Does a float32 result from the student equal a float64 result of a model, up to float32 rounding?

Correct float32 code differs from the float64 reference by at most ~1e-5 of the largest magnitude involved
(grading-facts.md: 6.3e-7 on outputs, 4.1e-5 on raw d=256 scores of magnitude ~50), while every catalogued
mistake differs by at least 4e-2. The tolerance sits between the two: RTOL of each entry plus SCALE_ATOL of
the largest entry of the tensor, since a dot product's rounding grows with its terms, not with its result.
NaN must meet NaN and an infinity the same infinity: a mistake that overflows is told apart by where it does.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch

RTOL = 1e-4
ATOL = 1e-6
SCALE_ATOL = 2e-5


@dataclass(frozen=True)
class Agreement:
    same: bool
    error: float  # largest absolute difference between finite entries; inf when shapes or structure differ


DIFFERENT = Agreement(False, math.inf)


def leaves(value: object) -> list:
    """A nested result as a flat list; each list or tuple (the same thing once it crossed the pipe) leaves a
    marker with its length, so that structures compare too."""
    if isinstance(value, (list, tuple)):
        flat: list = [("sequence", len(value))]
        for item in value:
            flat += leaves(item)
        return flat
    return [value]


def agree(got: object, want: object, exact_zeros: bool = False) -> Agreement:
    """`exact_zeros`: where `want` is exactly 0, `got` must be exactly 0 too (the kit's rule for the weight
    of a masked key: 1e-13 is not 0, however small)."""
    got_leaves, want_leaves = leaves(got), leaves(want)
    if len(got_leaves) != len(want_leaves):
        return DIFFERENT
    error = 0.0
    for mine, theirs in zip(got_leaves, want_leaves):
        if isinstance(theirs, torch.Tensor):
            found = tensors_agree(mine, theirs, exact_zeros)
            if not found.same:
                return found
            error = max(error, found.error)
        elif type(mine) is not type(theirs) or mine != theirs:
            return DIFFERENT
    return Agreement(True, error)


def tensors_agree(got: object, want: torch.Tensor, exact_zeros: bool = False) -> Agreement:
    if not isinstance(got, torch.Tensor) or tuple(got.shape) != tuple(want.shape):
        return DIFFERENT
    if (got.dtype == torch.bool) != (want.dtype == torch.bool):
        return DIFFERENT
    mine, theirs = got.detach().double(), want.detach().double()
    if exact_zeros and bool(((theirs == 0) & (mine != 0)).any()):
        return DIFFERENT
    special = ~theirs.isfinite()
    if special.any() or not mine.isfinite().all():
        # NaN must meet NaN and an infinity the same infinity (no boolean indexing: it is slow on small tensors)
        if not torch.equal(special, ~mine.isfinite()):
            return DIFFERENT
        marks = (mine.nan_to_num(0.5, 2.0, -2.0), theirs.nan_to_num(0.5, 2.0, -2.0))
        if not torch.equal(torch.where(special, marks[0], 0.0), torch.where(special, marks[1], 0.0)):
            return DIFFERENT
        mine, theirs = torch.where(special, 0.0, mine), torch.where(special, 0.0, theirs)
    difference, magnitude = (mine - theirs).abs(), theirs.abs()
    if difference.numel() == 0:
        return Agreement(True, 0.0)
    tolerance = ATOL + SCALE_ATOL * magnitude.max() + RTOL * magnitude
    return Agreement(bool((difference <= tolerance).all()), difference.max().item())


def gap(got: object, want: object) -> str:
    """How `want` differs from `got`, in a few words, for evidence ("differs by up to 0.93")."""
    got_leaves, want_leaves = leaves(got), leaves(want)
    if len(got_leaves) != len(want_leaves):
        return "has a different structure"
    for mine, theirs in zip(got_leaves, want_leaves):
        if not isinstance(theirs, torch.Tensor):
            continue
        if not isinstance(mine, torch.Tensor) or tuple(mine.shape) != tuple(theirs.shape):
            shape = tuple(mine.shape) if isinstance(mine, torch.Tensor) else type(mine).__name__
            return f"has shape {tuple(theirs.shape)} where yours has {shape}"
        mine, theirs = mine.detach().double(), theirs.detach().double()
        for name, mark in (("NaN", torch.isnan), ("infinite", torch.isinf)):
            if (mark(mine) & ~mark(theirs)).any():
                return f"is finite at {int((mark(mine) & ~mark(theirs)).sum())} entries where yours is {name}"
            if (mark(theirs) & ~mark(mine)).any():
                return f"is {name} at {int((mark(theirs) & ~mark(mine)).sum())} entries where yours is finite"
    return f"differs by up to {agree(got, want).error:.2g}"
