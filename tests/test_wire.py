"""The wire (sandbox/child/wire.py) hands over every message whole: what is decoded is what was sent.

Messages are generated as the harness and the graders make them and as hostile code may: nested dicts, lists
and tuples, subclasses of the built-in types, every float (NaN, infinities, -0.0), long and non-ASCII strings,
tensors of every dtype (the allowed ones kept, others sent as float64), non-contiguous, 0-d and empty ones, and
dicts shaped like the wire's own markers. Each must come back as `expected` below says, built without the wire;
anything that is not a message is refused with TypeError; every decoded tensor owns its memory.
"""
from __future__ import annotations

import json
import math

import torch
from hypothesis import given, settings, strategies as st

from autograder.sandbox.child import wire


class Text(str):
    pass


class Number(int):
    pass


class Real(float):
    pass


class Mapping(dict):
    pass


class Items(list):
    pass


DTYPES = [torch.float32, torch.float64, torch.int64, torch.bool, torch.float16, torch.int32, torch.uint8]


@st.composite
def tensors(draw):
    dtype = draw(st.sampled_from(DTYPES))
    shape = draw(st.lists(st.integers(0, 4), min_size=0, max_size=3))
    seed = draw(st.integers(0, 2 ** 16))
    values = torch.randn(tuple(shape), generator=torch.Generator().manual_seed(seed)) * 50
    tensor = (values > 0) if dtype == torch.bool else values.to(dtype)
    if draw(st.booleans()) and tensor.dim() >= 2:
        tensor = tensor.transpose(0, 1)  # not contiguous
    return tensor


floats = st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from([-0.0, 1e308, 5e-324])
texts = st.text(max_size=20) | st.integers(wire.LONG_TEXT - 2, wire.LONG_TEXT + 2).map(lambda n: "é" * n)
leaves = (st.none() | st.booleans() | st.integers(-2 ** 70, 2 ** 70) | floats | texts | tensors()
          | texts.map(Text) | st.integers().map(Number) | floats.map(Real))
RESERVED = ("$tensor", "$float", "$text")
markers = st.sampled_from([*RESERVED, "$randn"])  # a marker beside other keys, or another $ key, is plain data


def unreserved(mapping: dict) -> bool:
    """A dict whose one key is a marker of the wire ($tensor, $float, $text) is the wire's own: never a message."""
    return not (len(mapping) == 1 and str(next(iter(mapping))) in RESERVED)


def containers(children):
    keys = texts | markers | st.integers(-5, 5)
    dicts = st.dictionaries(keys, children, max_size=4).filter(unreserved)
    return (st.lists(children, max_size=4) | st.lists(children, max_size=4).map(tuple)
            | st.lists(children, max_size=4).map(Items) | dicts | dicts.map(Mapping))


messages = st.recursive(leaves, containers, max_leaves=25)


def expected(value):
    """What the receiver gets for `value`, by the wire's documented rules, without the wire."""
    if isinstance(value, torch.Tensor):
        kept = value.dtype in wire.DTYPES.values()
        return ("tensor", str(value.dtype if kept else torch.float64), tuple(value.shape),
                value.detach().to(value.dtype if kept else torch.float64).contiguous().view(-1).tolist())
    if isinstance(value, dict):
        return {str(k): expected(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [expected(v) for v in value]
    if isinstance(value, float):
        return ("float", "nan" if math.isnan(value) else float(value).hex())
    if isinstance(value, str):
        return str(value)
    return value


def received(value):
    """The decoded message in `expected`'s form (a float by its exact bits, a tensor by its values)."""
    if isinstance(value, torch.Tensor):
        return ("tensor", str(value.dtype), tuple(value.shape), value.contiguous().view(-1).tolist())
    if isinstance(value, dict):
        assert type(value) is dict and all(type(k) is str for k in value)
        return {k: received(v) for k, v in value.items()}
    if isinstance(value, list):
        assert type(value) is list
        return [received(v) for v in value]
    if isinstance(value, float):
        assert type(value) is float
        return ("float", "nan" if math.isnan(value) else value.hex())
    assert value is None or type(value) in (bool, int, str), type(value)
    return value


def strict(constant: str):
    raise AssertionError(f"the header holds {constant}, which is not JSON")


def longest_text(value) -> int:
    """The longest string value in a header (a dict's keys stay in the header whatever their length)."""
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        return max(map(longest_text, value), default=0)
    return len(value) if isinstance(value, str) else 0


def frame(message) -> tuple[bytes, bytes]:
    data = wire.encode(message)
    head, body = wire._LENGTHS.unpack(data[:16])
    assert len(data) == 16 + head + body  # the lengths say exactly what follows
    header = json.loads(data[16:16 + head], parse_constant=strict)  # strict JSON: no NaN or Infinity
    assert longest_text(header) <= wire.LONG_TEXT  # long strings travel in the payload
    return data[16:16 + head], data[16 + head:]


def storages(value) -> list[int]:
    if isinstance(value, torch.Tensor):
        return [value.untyped_storage().data_ptr()] if value.numel() else []
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        return [p for v in value for p in storages(v)]
    return []


@settings(max_examples=150, deadline=None)
@given(messages)
def test_every_message_arrives_as_sent(message):
    decoded = wire.decode(*frame(message))
    assert received(decoded) == expected(message)
    pointers = storages(decoded)
    assert len(pointers) == len(set(pointers))  # no two tensors share memory, nor the message's buffer


@settings(max_examples=40, deadline=None)
@given(messages, st.sampled_from([object(), {1, 2}, b"bytes", 1j, torch.nn.Linear(1, 1)]))
def test_anything_else_is_refused(message, stranger):
    for wrapped in ([message, stranger], {"x": [message, {"y": stranger}]}):
        try:
            wire.encode(wrapped)
        except TypeError:
            continue
        raise AssertionError(f"{type(stranger).__name__} was sent")
