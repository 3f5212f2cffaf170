"""expect.within settles a right answer with tolerance.inside, a cheaper test than tolerance.within's: the verdict
and the message must be exactly those of within alone, for every answer (NaN, infinities where the reference has
them or not, differences at, just past and far past their bound, zero and infinite bounds)."""
from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings, strategies as st

from autograder.grading import expect, tolerance
from autograder.grading.faults import StudentFault

SPECIAL = [float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 1e-300, 1e300]


@st.composite
def answers(draw):
    """(got float32, reference float64, bound float64), differences placed around the bound."""
    n = draw(st.integers(1, 6))
    seed = draw(st.integers(0, 2 ** 16))
    generator = torch.Generator().manual_seed(seed)
    ref = torch.randn(n, generator=generator, dtype=torch.float64) * draw(st.sampled_from([1.0, 1e3, 1e-30]))
    bound = torch.rand(n, generator=generator, dtype=torch.float64) * draw(st.sampled_from([1e-6, 1e-2, 0.0]))
    # each difference a multiple of its allowed size: inside, on the edge, just past, far past
    factors = torch.tensor(draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 1.0 + 1e-9, 2.0, 1e6]), min_size=n,
                                         max_size=n)), dtype=torch.float64)
    got = (ref + factors * tolerance.SAFETY * bound * draw(st.sampled_from([1.0, -1.0]))).float()
    for tensor in (got, ref, bound):  # now and then a special value anywhere
        for i in range(n):
            if draw(st.integers(0, 9)) == 0:
                tensor[i] = torch.tensor(draw(st.sampled_from(SPECIAL)), dtype=torch.float64).to(tensor.dtype)
    return got, ref, bound


def verdict(got, ref, bound) -> str:
    try:
        expect.within(got, (ref, bound), "your answer")
        return "passed"
    except StudentFault as fault:
        return f"failed: {fault}"


@settings(max_examples=300, deadline=None)
@given(answers())
def test_the_fast_test_never_changes_a_verdict(case):
    got, ref, bound = case
    fast = verdict(got, ref, bound)
    if tolerance.inside(got, ref, bound):
        assert tolerance.within(got, ref, bound)[0]  # inside is only ever said of an answer within accepts
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tolerance, "inside", lambda *args: False)  # within alone, as before
        assert verdict(got, ref, bound) == fast


def test_the_fast_test_settles_right_answers_and_only_them():
    ref = torch.linspace(-3, 3, 12, dtype=torch.float64)
    bound = torch.full_like(ref, 1e-6)
    assert tolerance.inside(ref.float(), ref, bound)
    assert not tolerance.inside(ref.float() + 1e-3, ref, bound)
    assert not tolerance.inside(torch.full((12,), float("nan")), ref, bound)
    same_infinity = torch.tensor([float("inf")], dtype=torch.float64)
    assert not tolerance.inside(same_infinity.float(), same_infinity, torch.zeros(1, dtype=torch.float64))
    assert tolerance.within(same_infinity.float(), same_infinity, torch.zeros(1, dtype=torch.float64))[0]
