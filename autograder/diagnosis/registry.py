"""Every target's reference (float64) and mistake models, by the target's name in the student's file."""
from __future__ import annotations

import torch

from . import attention_models, scores_models
from .model import Model
from .probe import Probe

REFERENCES = {**scores_models.REFERENCES, **attention_models.REFERENCES}
MODELS: dict[str, list[Model]] = {}
for _model in scores_models.MODELS + attention_models.MODELS:
    MODELS.setdefault(_model.target, []).append(_model)


# A forbidden score at or below this is as good as -inf: softmax gives it exactly 0 weight next to any
# allowed score in the documented range (d2l fills with -1e6, the Annotated Transformer with -1e9).
AS_GOOD_AS_MINUS_INF = -1e6


def canonical(target: str, value: object) -> object:
    """A result as the graders judge it: apply_mask's fills of -1e6 or below count as -inf."""
    if target == "apply_mask" and isinstance(value, torch.Tensor) and value.is_floating_point():
        return value.masked_fill(value <= AS_GOOD_AS_MINUS_INF, float("-inf"))
    return value


def models_for(target: str) -> list[Model]:
    return MODELS.get(target, [])


def reference(probe: Probe) -> object:
    """The right result of a float64 probe."""
    return REFERENCES[probe.target](probe)
