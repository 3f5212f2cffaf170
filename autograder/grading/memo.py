"""Reference answers computed once per grading process, not once per student.

Every student of a shard meets the same hidden inputs (drawn from fixed seeds), so the float64 reference
answers and their error bounds are the same for each of them. `memoized` keys a pure function's call by
the values of its arguments (a tensor by its shape, dtype and bytes, never by identity), so a recomputed
input hits the entry of an equal one, and an input that differs in one bit is computed afresh. Each hit
hands out copies, so a caller that edits a reference in place cannot change the next student's.
"""
from __future__ import annotations

import dataclasses
import functools
from collections import OrderedDict
from typing import Callable

import torch

ENTRIES = 4096  # per function: far more than one student's distinct probes


def _key(value):
    if isinstance(value, torch.Tensor):
        value = value.detach()
        if value.layout != torch.strided or value.is_conj() or value.is_neg():
            raise TypeError("unusual tensor")  # such an argument is computed afresh (see memoized)
        return ("tensor", tuple(value.shape), str(value.dtype), value.contiguous().view(-1).numpy().tobytes()
                if value.dtype != torch.bfloat16 else value.float().numpy().tobytes())
    if isinstance(value, (tuple, list)):
        return (type(value).__name__, tuple(_key(v) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple((k, _key(v)) for k, v in sorted(value.items())))
    if dataclasses.is_dataclass(value) and type(value).__dataclass_params__.frozen:
        try:
            hash(value)  # a frozen dataclass of plain values is its own key (equal by its fields)
            return (type(value).__qualname__, value)
        except TypeError:
            return (type(value).__qualname__, tuple(_key(getattr(value, f.name)) for f in dataclasses.fields(value)))
    if value is None or isinstance(value, (bool, int, float, str)):
        return (type(value).__name__, value)
    raise TypeError(f"no value key for {type(value).__name__}")


def _copy(value):
    if isinstance(value, torch.Tensor):
        return value.clone()
    if isinstance(value, tuple):
        return tuple(_copy(v) for v in value)
    if isinstance(value, list):
        return [_copy(v) for v in value]
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    return value


def memoized(function: Callable) -> Callable:
    """`function`, answered from a bounded cache keyed by its arguments' values."""
    cache: OrderedDict = OrderedDict()

    @functools.wraps(function)
    def cached(*args, **kwargs):
        try:
            key = (_key(args), _key(kwargs))
        except TypeError:
            return function(*args, **kwargs)
        if key in cache:
            cache.move_to_end(key)
            return _copy(cache[key])
        result = function(*args, **kwargs)
        cache[key] = _copy(result)
        if len(cache) > ENTRIES:
            cache.popitem(last=False)
        return result

    return cached
