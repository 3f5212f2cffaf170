"""A slice of the seed sweep (`make sweep` runs 200 seeds over the whole catalogue): the boundary cases
of the float32 tolerances and of the masking rule, on seeds the catalogue run does not use."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import seed_sweep  # noqa: E402

pytestmark = pytest.mark.slow

# The tightest correct styles (logsumexp softmax far below zero, x_q scaled before the projection, -1e6 and
# finfo.min fills) and the leakiest wrong ones (-30 fills in every function the rule covers).
SLICE = ["scores_d2l_fill_and_logsumexp", "sha_scale_query_states_first", "sha_python_loops_d2l_fill",
         "mask_fill_minus_thirty", "weights_fill_minus_thirty", "att_mask_fill_minus_thirty"]


@pytest.mark.parametrize("student", seed_sweep.students(set(SLICE)), ids=lambda s: s["name"])
def test_verdict_holds_on_other_seeds(student):
    result = seed_sweep.sweep_one({**student, "shifts": (1, 2)}, 0)
    assert not seed_sweep.verdict(result), seed_sweep.verdict(result)
