"""Seeded inputs that either side can rebuild, so big tensors need not cross the pipe."""
from __future__ import annotations

import torch


def seeded_randn(shape: list[int], seed: int, dtype: str = "float32", scale: float = 1.0,
                 masked: bool = False) -> torch.Tensor:
    """`masked`: scores after masked_fill(mask == 0, -inf): about a third of the last axis is -inf, never
    its first entry, so no row is hidden whole."""
    generator = torch.Generator().manual_seed(int(seed))
    values = torch.randn([int(n) for n in shape], generator=generator, dtype=torch.float64) * float(scale)
    if masked:
        hidden = torch.rand(values.shape, generator=generator, dtype=torch.float64) < 0.35
        hidden[..., 0] = False
        values = values.masked_fill(hidden, float("-inf"))
    return values.to(getattr(torch, dtype))


_made: dict[tuple, torch.Tensor] = {}


def materialize(value: object) -> object:
    """Replace every {"$randn": {...}} placeholder in a decoded message by its tensor. Each distinct
    input is generated once per child and handed out as a fresh copy, so a student's in-place edits
    cannot leak into a later probe."""
    if isinstance(value, dict):
        if set(value) == {"$randn"}:
            spec = value["$randn"]
            key = (tuple(spec["shape"]), int(spec["seed"]), spec.get("dtype", "float32"), float(spec.get("scale", 1.0)),
                   bool(spec.get("masked", False)))
            if key not in _made:
                _made[key] = seeded_randn(*key)
            return _made[key].clone()
        return {k: materialize(v) for k, v in value.items()}
    if isinstance(value, list):
        return [materialize(v) for v in value]
    return value


def laid_out(value: object, layout: str | None) -> object:
    """The same values in another memory layout: "expanded" (a broadcast view with stride 0 where the
    tensor has size 1, to `(..., T_q, T_k)`-like shapes given as "expanded:B,T_q,T_k") or "strided" (not
    contiguous). Masks reach student code in every layout the handout allows."""
    if not isinstance(value, torch.Tensor) or not layout:
        return value
    if layout.startswith("expanded:"):
        return value.expand([int(n) for n in layout.split(":", 1)[1].split(",")])
    if layout == "strided":
        doubled = torch.stack([value, value], dim=-1)
        return doubled[..., 0]
    return value
