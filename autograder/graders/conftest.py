"""Fixtures shared by the hidden graders. Trusted: runs only in the grading process.

The reference solution of attention_scores is the generated instructor file in solutions/, imported
here, in the parent, and never sent to a student's process. (single_head_attention's graders carry
their own float64 oracle, which checks the solution too.)
"""
from __future__ import annotations

import importlib.util
import math

import pytest
import torch

from autograder import paths
from autograder.grading.student import probe_seed
from autograder.sandbox.child.inputs import seeded_randn

# The references and float32 bounds are small float64 computations, thousands per class: one thread does
# them faster than a pool, whose workers spin and fight the sandboxed children for the same cores.
torch.set_num_threads(1)


def load_reference(name: str):
    path = paths.SOLUTIONS_DIR / name / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"reference_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def ref_scores():
    return load_reference("attention_scores")


@pytest.fixture(scope="session")
def saturation_reference(ref_scores):
    """Mean entropies of the reference pipeline on the grader's seeded inputs, once per run."""
    return saturation_entropies(ref_scores)


def saturation_entropies(ref_scores) -> dict:
    raw, scaled = [], []
    for d in (8, 64, 256):
        Q = seeded_randn([16, 32, d], probe_seed(100 + d), "float32").double()  # what the student's code receives
        K = seeded_randn([16, 16, d], probe_seed(200 + d), "float32").double()
        for scores, into in ((ref_scores.dot_scores(Q, K), raw), (ref_scores.scaled_dot_scores(Q, K), scaled)):
            weights = torch.softmax(scores, dim=-1)
            into.append(round(ref_scores.softmax_entropy(weights).mean().item(), 3))
    assert raw[0] > raw[1] > raw[2] and abs(scaled[0] - math.log(16)) < 0.5
    return {"raw": raw, "scaled": scaled}
