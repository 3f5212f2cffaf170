"""Mistakes seen directly in what the child reports about a call, rather than in its numbers: parameters the
module declares, gradients that never arrive, inputs that come back changed, a forbidden kernel used."""
from __future__ import annotations

import torch

from ..results import Diagnosis
from .catalog import MISTAKES


def finding(mistake: str, evidence: str) -> Diagnosis:
    return Diagnosis(mistake, MISTAKES[mistake], evidence)


def unexpected_biases(param_names: dict, expected: dict) -> list[str]:
    """Bias parameters the module has beyond the expected ones ("W_Q.bias")."""
    return sorted(name for name in param_names if name.endswith("bias") and name not in expected)


def biases_zeroed(params: dict, param_names: dict, biases: list[str]) -> dict:
    """The probe's parameters plus zeros for the student's biases: a second call with these tells whether
    the biases are all that is wrong."""
    zeros = {name: torch.zeros(*[int(n) for n in param_names[name]]) for name in biases}
    return {**params, **zeros}


def projection_bias(module: str, biases: list[str], right_without_them: str = "") -> Diagnosis:
    evidence = f"{module} has the parameters {', '.join(biases)}"
    if right_without_them:
        evidence += f", and with them set to 0 {right_without_them} is right"
    return finding("projection-bias", evidence + ".")


def graph_cut(evidence: str) -> Diagnosis:
    """Only for code whose result is right: the gradient, not the value, is what is missing."""
    return finding("graph-cut", f"{evidence}.")


def backward_differs(evidence: str) -> Diagnosis:
    """Only for code whose result is right: the gradient's value, not its presence, is what is wrong."""
    return finding("backward-differs", f"{evidence}.")


def inputs_modified(call: str, changed: list[str]) -> Diagnosis:
    return finding("inputs-modified", f"after {call}, the {', '.join(changed)} passed in had changed.")


def forbidden_api(seen: str) -> Diagnosis:
    """`seen`: what the kernel watch saw run, e.g. "calling attention(...) ran aten::_scaled_dot_product..."."""
    return finding("forbidden-api", f"{seen}.")


def train_mode_differs(call: str) -> Diagnosis:
    """Only when the same layer, weights and inputs give the reference's answer in eval() mode."""
    return finding("train-mode-differs", f"{call} is wrong, while the same layer, weights and inputs give the "
                                         "right answer in eval() mode.")


def random_result(call: str, difference: str) -> Diagnosis:
    return finding("random-result", f"two calls of {call} with the same inputs gave different results (the second "
                                    f"{difference} from the first).")
