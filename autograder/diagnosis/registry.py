"""Every target's reference (float64) and mistake models, by the target's name in the student's file, and the
assignment whose exercise each target is (OWNERS).

An exercise name means nothing outside its assignment: another master's `attention` is another function. What the
graders of a student's file consult is a Scope, for that file's assignment: it gives a target of another assignment
no reference, no model, no pipeline and no rule (its calls are judged by nothing here and named by no mistake).
"""
from __future__ import annotations

from dataclasses import dataclass

import torch

from . import attention_models, scores_models
from .model import Model
from ..sandbox.child.inputs import seeded_randn
from .probe import Probe

REFERENCES = {**scores_models.REFERENCES, **attention_models.REFERENCES}
OWNERS = {**{target: scores_models.ASSIGNMENT for target in scores_models.REFERENCES},
          **{target: attention_models.ASSIGNMENT for target in attention_models.REFERENCES}}
MODELS: dict[str, list[Model]] = {}
for _model in scores_models.MODELS + attention_models.MODELS:
    MODELS.setdefault(_model.target, []).append(_model)


# A forbidden score at or below this is as good as -inf: softmax gives it exactly 0 weight next to any
# allowed score in the documented range (d2l fills with -1e6, the Annotated Transformer with -1e9).
AS_GOOD_AS_MINUS_INF = -1e6


# Targets that return attention weights: a masked key's weight must be exactly 0 (compare.agree's exact_zeros).
EXACT_ZEROS = {"attention_weights", "attention", "SingleHeadAttention"}


def canonical(target: str, value: object) -> object:
    """A result as the graders judge it: apply_mask's fills of -1e6 or below count as -inf; a built mask may be
    bool or 0/1 numbers."""
    if target == "apply_mask" and isinstance(value, torch.Tensor) and value.is_floating_point():
        return value.masked_fill(value <= AS_GOOD_AS_MINUS_INF, float("-inf"))
    if target in ("causal_mask", "padding_mask") and isinstance(value, torch.Tensor) and value.dtype != torch.bool:
        return value.bool() if bool(((value == 0) | (value == 1)).all()) else value
    return value


def _drawn(shape, seed: int) -> dict:
    return {"$randn": {"shape": [int(n) for n in shape], "seed": seed}}


def _shape(value) -> list[int]:
    return list(value["$randn"]["shape"]) if isinstance(value, dict) else list(value.shape)


def square(probe: Probe, seed: int) -> Probe | None:
    """The same call with as many keys as queries (and d_q = d_k): code that fails on a shape mismatch often
    runs there, and its result can then be compared with the mistake models. None for other targets."""
    args = list(probe.args)
    if probe.target == "attention" and len(args) >= 3:
        (B, T_q, d_k), d_v = _shape(args[0]), _shape(args[2])[-1]
        return Probe("attention", (args[0], _drawn([B, T_q, d_k], seed), _drawn([B, T_q, d_v], seed + 1)),
                     what=probe.what)
    if probe.target == "SingleHeadAttention" and len(args) >= 2 and probe.params:
        return Probe(probe.target, (args[0], _drawn(_shape(args[0]), seed)), params=probe.params, init=probe.init)
    if probe.target == "GeneralScore" and len(args) >= 2 and probe.init:
        d_k = probe.init[1]
        queries = _shape(args[0])[:-1] + [d_k]
        weight = seeded_randn([d_k, d_k], seed + 1)  # parameters are sent as tensors, not as seeds
        return Probe(probe.target, (_drawn(queries, seed), args[1]), params={"W.weight": weight}, init=(d_k, d_k))
    return None


def models_for(target: str) -> list[Model]:
    return MODELS.get(target, [])


def reference(probe: Probe) -> object:
    """The right result of a float64 probe."""
    return REFERENCES[probe.target](probe)


@dataclass(frozen=True)
class Scope:
    """The built-in references, models, search pipelines and judging rules as one assignment's graders see them:
    only its own targets. `assignment` None: every built-in target (the tools and tests that judge those targets
    directly, outside any student file)."""
    assignment: str | None = None

    def owns(self, target: str) -> bool:
        return target in OWNERS and (self.assignment is None or OWNERS[target] == self.assignment)

    def models_for(self, target: str) -> list[Model]:
        return models_for(target) if self.owns(target) else []

    def reference(self, probe: Probe) -> object:
        if not self.owns(probe.target):
            raise KeyError(f"{probe.target} of {self.assignment} has no built-in reference")
        return reference(probe)

    def canonical(self, target: str, value: object) -> object:
        return canonical(target, value) if self.owns(target) else value

    def exact_zeros(self, target: str) -> bool:
        return target in EXACT_ZEROS and self.owns(target)

    def pipeline_for(self, target: str):
        from .stages import pipeline_for

        return pipeline_for(target) if self.owns(target) else None

    def square(self, probe: Probe, seed: int) -> Probe | None:
        return square(probe, seed) if self.owns(probe.target) else None
