"""Probe inputs shared by the hidden graders: masks made from seeds (the seed sweep moves them too)."""
from __future__ import annotations

import torch

from .student import seeded_generator


def random_mask(seed: int, *shape: int) -> torch.Tensor:
    """A bool pattern whose rows differ; every row keeps at least one key (fully masked rows are out of scope)."""
    allowed = torch.rand(*shape, generator=seeded_generator(seed)) > 0.45
    allowed[..., torch.randint(shape[-1], (1,), generator=seeded_generator(seed + 1)).item()] = True
    return allowed


def padding(lengths: list[int], T_k: int) -> torch.Tensor:
    """(B, 1, T_k) bool padding mask: key j is allowed when j < lengths[b]."""
    return (torch.arange(T_k)[None, :] < torch.tensor(lengths)[:, None]).unsqueeze(1)
