"""grading/memo.py: reference answers computed once per grading process, keyed by value, handed out as copies."""
from __future__ import annotations

import torch
from hypothesis import given, settings, strategies as st

from autograder.grading import tolerance as tol
from autograder.grading.memo import memoized


def counting():
    calls = []

    @memoized
    def double(x, scale=1.0):
        calls.append(1)
        return (x * 2 * scale, [x.sum()])

    return double, calls


def test_an_equal_input_is_answered_from_the_cache_and_a_changed_one_afresh():
    double, calls = counting()
    x = torch.arange(6.0).reshape(2, 3)
    first = double(x)
    again = double(x.clone())  # another tensor, the same values
    assert len(calls) == 1 and torch.equal(first[0], again[0])
    y = x.clone()
    y[1, 2] = torch.nextafter(y[1, 2], torch.tensor(100.0))  # one bit
    double(y)
    double(x, scale=2.0)
    double(x.double())  # another dtype
    double(x.reshape(3, 2))  # another shape
    assert len(calls) == 5


def test_a_caller_that_edits_an_answer_in_place_cannot_change_the_next_one():
    double, _ = counting()
    x = torch.ones(3)
    first = double(x)
    first[0].fill_(-1)
    first[1][0].fill_(-1)
    again = double(x)
    assert torch.equal(again[0], torch.full((3,), 2.0)) and again[1][0].item() == 3.0


def test_layouts_and_views_key_by_value():
    double, calls = counting()
    x = torch.arange(12.0).reshape(3, 4)
    double(x.t().contiguous())
    double(x.t())  # a strided view of the same values
    assert len(calls) == 1


def test_what_cannot_be_keyed_is_computed_each_time():
    calls = []

    @memoized
    def apply(x, fn):
        calls.append(1)
        return fn(x)

    x = torch.ones(2)
    apply(x, torch.exp)
    apply(x, torch.exp)  # a function is no value: no key, no cache
    apply(x.to_sparse(), lambda t: t)  # nor is a sparse tensor
    assert len(calls) == 3


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 3), st.integers(1, 4), st.integers(1, 4), st.integers(0, 2 ** 31 - 1), st.booleans())
def test_memoized_references_equal_fresh_ones(B, T_q, T_k, seed, masked):
    """The cached tol.attention and tol.attention_backward answer exactly what the computation gives."""
    g = torch.Generator().manual_seed(seed)
    Q, K, V = (torch.randn(B, n, 5, generator=g) for n in (T_q, T_k, T_k))
    allowed = (torch.rand(B, T_q, T_k, generator=g) > 0.3) | (torch.arange(T_k) == 0) if masked else None
    for cached, fresh in ((tol.attention, tol.attention.__wrapped__),
                          (tol.attention_backward, tol.attention_backward.__wrapped__)):
        args = (Q, K, V) if cached is tol.attention else (Q, K, V, torch.ones(B, T_q, 5))
        for got, want in zip(_flat(cached(*args, allowed)), _flat(fresh(*args, allowed))):
            assert torch.equal(got, want)
        for got, want in zip(_flat(cached(*args, allowed)), _flat(fresh(*args, allowed))):  # from the cache
            assert torch.equal(got, want)


def _flat(value):
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in _flat(v)]
    return []


def test_frozen_dataclasses_key_by_their_fields():
    from autograder.grading.space import MaskProbe

    calls = []

    @memoized
    def build(probe):
        calls.append(1)
        return probe.build()

    fields = dict(B=2, T_q=3, T_k=4, form="B,T_q,T_k", dtype="bool", layout="contiguous", pattern_seed=1,
                  score_seed=2, spread=1.0, depth=-50.0)
    first = build(MaskProbe(**fields))
    again = build(MaskProbe(**fields))
    build(MaskProbe(**{**fields, "depth": -120.0}))
    assert len(calls) == 2 and all(torch.equal(a, b) for a, b in zip(first, again))
