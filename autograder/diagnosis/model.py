"""A mistake model: what one known mistake makes a target return, computed in float64 in the trusted process.

Most models are a fixed function of the probe's inputs. A few have one free quantity that the code chose and
the probe cannot know (the fill value of `masked_fill(mask == 0, -10)`, which weights dropout kept, a bias
vector): `fit` reads it from the student's output, and the model then has to reproduce the *whole* output
with that one value, which is the evidence.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .catalog import MISTAKES
from .pipeline import NotApplicable
from .probe import Probe

Fitted = tuple[dict, str]   # keyword arguments for the model, and a short note for the evidence


@dataclass(frozen=True)
class Model:
    mistake: str                                               # id in catalog.MISTAKES
    target: str                                                # the student's function or class
    compute: Callable[..., object]                             # (float64 probe, **fitted) -> output
    fit: Callable[[Probe, object], Fitted | None] | None = None

    def __post_init__(self) -> None:
        if self.mistake not in MISTAKES:
            raise ValueError(f"unknown mistake id {self.mistake!r}")

    def run(self, probe: Probe, student_output: object) -> tuple[object, str]:
        """The model's output on a float64 probe, and the note on what was fitted ("" if nothing).
        Raises pipeline.NotApplicable when it cannot tell, or whatever the mistaken code would raise."""
        if self.fit is None:
            return self.compute(probe), ""
        fitted = self.fit(probe, student_output)
        if fitted is None:
            raise NotApplicable("nothing to fit")
        kwargs, note = fitted
        return self.compute(probe, **kwargs), note


def function_model(target: str, mistake: str, fn: Callable, fit=None) -> Model:
    """A model of a function target: `fn` has the student function's signature (plus fitted keywords)."""
    return Model(mistake, target, lambda p, **fitted: fn(*p.args, **p.kwargs, **fitted), fit)


def module_model(target: str, mistake: str, fn: Callable, fit=None) -> Model:
    """A model of a module target: `fn(params, *forward_args)`, with the parameters the probe set."""
    return Model(mistake, target, lambda p, **fitted: fn(p.params, *p.args, **p.kwargs, **fitted), fit)
