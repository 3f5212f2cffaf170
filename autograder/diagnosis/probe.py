"""What the matcher knows about one call of the student's code: the inputs it was given and what came back."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

import torch

from ..sandbox.child.inputs import seeded_randn


@dataclass(frozen=True)
class Probe:
    """One call: `target(*args, **kwargs)`, or for a module `target(*init)` with `params` loaded, then forward."""
    target: str                        # the name in the student's file: "attention", "SingleHeadAttention"
    args: tuple = ()
    kwargs: Mapping = field(default_factory=dict)
    params: Mapping | None = None      # module parameters set by the probe, by name ("W_Q.weight")
    what: str = ""                     # how feedback names the call: "attention with a causal (T, T) mask"
    init: tuple | None = None          # a module's constructor arguments

    def in_float64(self) -> "Probe":
        """The same inputs as the reference sees them: seeded inputs rebuilt, floating tensors in float64."""
        return Probe(self.target, tuple(float64(a) for a in self.args),
                     {k: float64(v) for k, v in self.kwargs.items()},
                     None if self.params is None else {k: float64(v) for k, v in self.params.items()}, self.what,
                     self.init)

    def redrawn(self, seed: int) -> "Probe":
        """The same call with every floating input drawn afresh from a seed (0/1 masks and parameters kept):
        mistakes that happened to agree on the first inputs rarely agree on these."""
        drawn = iter(range(1_000))

        def fresh(value: object) -> object:
            if isinstance(value, dict) and set(value) == {"$randn"}:
                shape = value["$randn"]["shape"]
            elif isinstance(value, torch.Tensor) and value.is_floating_point() and not is_mask(value):
                shape = list(value.shape)
            else:
                return value
            return {"$randn": {"shape": shape, "seed": 900_000 + 1_000 * seed + next(drawn)}}

        return Probe(self.target, tuple(fresh(a) for a in self.args), {k: fresh(v) for k, v in self.kwargs.items()},
                     self.params, self.what, self.init)

    def degenerate(self) -> bool:
        """A size-1 axis among the last two of a floating input (one query, one key, one feature): there many
        mistakes, and valid ways of writing the code, give the same result, so such a call alone names nothing."""
        return any(1 in shape[-2:] for shape in self._float_shapes())

    def widened(self, seed: int) -> "Probe | None":
        """The same call with the size-1 last two axes of the floating inputs grown to 3, drawn afresh
        (None where a mask or parameter fixes the sizes, or nothing is size 1)."""
        if not self.degenerate() or any(isinstance(a, torch.Tensor) and not a.is_floating_point() or
                                        isinstance(a, torch.Tensor) and is_mask(a) for a in self.args):
            return None
        drawn = iter(range(1_000))

        def grown(value: object) -> object:
            shape = spec_shape(value)
            if shape is None:
                return value
            shape = shape[:-2] + [3 if n == 1 else n for n in shape[-2:]]
            return {"$randn": {"shape": shape, "seed": 950_000 + 1_000 * seed + next(drawn)}}

        return Probe(self.target, tuple(grown(a) for a in self.args), dict(self.kwargs), self.params, self.what,
                     self.init)

    def _float_shapes(self) -> list[list[int]]:
        return [shape for a in list(self.args) + list(self.kwargs.values()) if (shape := spec_shape(a)) is not None]

    def describe(self) -> str:
        return self.what or f"{self.target}({', '.join(shape_of(a) for a in self.args)})"


@dataclass(frozen=True)
class Observation:
    """A probe and what the student's code did with it: returned `output`, or raised (`raised` True).
    `report` keeps what the child said besides the output: "param_names", "inputs_changed"."""
    probe: Probe
    output: object = None
    raised: bool = False
    report: Mapping = field(default_factory=dict)


def float64(value: object) -> object:
    if isinstance(value, dict) and set(value) == {"$randn"}:
        spec = value["$randn"]
        value = seeded_randn(spec["shape"], spec["seed"], spec.get("dtype", "float32"))
    if isinstance(value, torch.Tensor):
        value = value.detach()
        return value.double() if value.is_floating_point() else value
    if isinstance(value, dict):
        return {k: float64(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(float64(v) for v in value)
    return value


def is_mask(value: torch.Tensor) -> bool:
    return bool(((value == 0) | (value == 1)).all())


def shape_of(value: object) -> str:
    if isinstance(value, torch.Tensor):
        return "x".join(map(str, value.shape)) if value.dim() else "scalar"
    if isinstance(value, dict) and set(value) == {"$randn"}:
        return "x".join(map(str, value["$randn"]["shape"]))
    return repr(value)[:20]


def spec_shape(value: object) -> list[int] | None:
    """The shape of a floating, non-mask input (a seeded spec or a tensor); None for anything else."""
    if isinstance(value, dict) and set(value) == {"$randn"}:
        return list(value["$randn"]["shape"])
    if isinstance(value, torch.Tensor) and value.is_floating_point() and value.dim() and not is_mask(value):
        return list(value.shape)
    return None
