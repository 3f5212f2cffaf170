"""The only format that crosses the trust boundary: a JSON header plus raw tensor bytes.

Both sides use this file. Decoding never executes anything: JSON is parsed by the standard
library and tensors are rebuilt from raw little-endian bytes with a dtype from a short allow-list,
so a hostile child can at worst send wrong numbers, never code (no pickle anywhere).

Frame: 8-byte big-endian header length, 8-byte payload length, JSON header, payload.
Values are JSON with tensors replaced by {"$tensor": i}; header["tensors"][i] = {dtype, shape, offset}.
Long strings (a student's source file, a flood of output) travel as raw UTF-8 in the payload,
{"$text": [offset, length]}, so the JSON header stays small whatever size of file is accepted.

In the child, encoding runs in the student's process: a tensor's values are read with functions bound when this
module is imported, in the fork server before any student file runs (`TensorBase.numpy` and `.to`, methods of an
immutable C type, called with torch-function dispatch off; then numpy). Patching `torch.Tensor.numpy`, `.clone`,
`.contiguous` or pushing a torch-function mode changes nothing in what is sent. `fingerprint` uses the same
reading: what an input holds after the student's call, judged by the parent (grading/integrity.py).
"""
from __future__ import annotations

import hashlib
import json
import math
import struct
import socket
import time

import numpy
import torch

DTYPES = {"float32": torch.float32, "float64": torch.float64, "int64": torch.int64, "bool": torch.bool}
NAMES = {v: k for k, v in DTYPES.items()}
MAX_HEADER = 1 << 20  # 1 MiB of JSON is far beyond any honest message
LONG_TEXT = 4096      # strings longer than this go into the payload
_LENGTHS = struct.Struct(">QQ")
_TENSOR = torch._C.TensorBase
_DTYPE = torch._C.TensorBase.dtype.__get__
_TO = torch._C.TensorBase.to
_NUMPY = torch._C.TensorBase.numpy
_NO_TORCH_FUNCTION = torch._C.DisableTorchFunction
_CONTIGUOUS = numpy.ascontiguousarray
_SHA256 = hashlib.sha256
_FLOAT64 = torch.float64
_ISINSTANCE, _LIST, _STR, _LEN = isinstance, list, str, len
_TYPE, _DICT, _TUPLE, _FLOAT, _ISFINITE = type, dict, tuple, float, math.isfinite
_PLAIN = frozenset((int, bool, type(None)))  # exact types sent as they are, whatever their value
_JSON_LEAVES = frozenset((str, int, float, bool, type(None)))  # what JSON decodes to besides dict and list
ITEM_BYTES = {dtype: torch.empty((), dtype=dtype).element_size() for dtype in DTYPES.values()}


def values(tensor: torch.Tensor) -> tuple[str, numpy.ndarray]:
    """(dtype name, values as a numpy array in the tensor's shape): an allowed dtype, another one as float64."""
    with _NO_TORCH_FUNCTION():
        name = NAMES.get(_DTYPE(tensor))
        if name is None:
            tensor, name = _TO(tensor, _FLOAT64), "float64"
        return name, _NUMPY(tensor, force=True)


def fingerprint(value: object) -> list | None:
    """[dtype, shape, SHA-256 of the values in row-major order] of a tensor; None for anything else."""
    if not _ISINSTANCE(value, _TENSOR):
        return None
    name, array = values(value)
    return [name, _LIST(array.shape), _SHA256(_CONTIGUOUS(array)).hexdigest()]


def fingerprints(args: list, kwargs: dict) -> dict:
    """{"args": [fingerprint or None per argument], "kwargs": {name: fingerprint or None}}."""
    return {"args": [fingerprint(a) for a in args], "kwargs": {_STR(k): fingerprint(v) for k, v in kwargs.items()}}


class WireError(Exception):
    """The other side sent something that is not a well-formed message."""


def encode(message: object) -> bytes:
    tensors: list[dict] = []
    chunks: list[bytes] = []
    offset = 0

    def tensor(value):
        nonlocal offset
        name, array = values(value)
        raw = _CONTIGUOUS(array).tobytes()
        tensors.append({"dtype": name, "shape": _LIST(array.shape), "offset": offset})
        chunks.append(raw)
        offset += _LEN(raw)
        return {"$tensor": _LEN(tensors) - 1}

    def text(value):
        nonlocal offset
        raw = value.encode("utf-8", "surrogatepass")
        chunks.append(raw)
        offset += _LEN(raw)
        return {"$text": [offset - _LEN(raw), _LEN(raw)]}

    def walk(value):
        # Exact built-in types first (nearly every node of a message): the same answer as the checks below
        # give them, without a call per leaf. Subclasses, tensors and anything else take the checks below.
        kind = _TYPE(value)
        if kind is _DICT:
            return {(k if _TYPE(k) is _STR else _STR(k)): (v if _TYPE(v) in _PLAIN else walk(v))
                    for k, v in value.items()}
        if kind is _LIST or kind is _TUPLE:
            return [v if _TYPE(v) in _PLAIN else walk(v) for v in value]
        if kind is _STR:
            return value if _LEN(value) <= LONG_TEXT else text(value)
        if kind is _FLOAT:
            return value if _ISFINITE(value) else {"$float": repr(value)}
        if _ISINSTANCE(value, _TENSOR):
            return tensor(value)
        if isinstance(value, dict):
            return {str(k): walk(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [walk(v) for v in value]
        if isinstance(value, float) and not math.isfinite(value):
            return {"$float": repr(value)}
        if isinstance(value, str) and len(value) > LONG_TEXT:
            return text(value)
        if value is None or isinstance(value, (bool, int, float, str)):
            return value
        raise TypeError(f"cannot send a {type(value).__name__}")

    body = walk(message)
    # compact, and no cycle check: walk built `body` afresh, so it has none
    header = json.dumps({"body": body, "tensors": tensors}, separators=(",", ":"), check_circular=False).encode()
    return b"".join([_LENGTHS.pack(len(header), offset), header, *chunks])


def decode(header_bytes: bytes, payload: bytes) -> object:
    try:
        header = json.loads(header_bytes)
        specs = header["tensors"]
        body = header["body"]
    except (ValueError, KeyError, TypeError, RecursionError) as exc:  # RecursionError: [[[[...]]]]
        raise WireError(f"unreadable header: {type(exc).__name__}") from None
    if not isinstance(specs, list):
        raise WireError("tensor table is not a list")
    tensors = [_tensor(spec, payload) for spec in specs]

    def special(value: dict):
        key, inner = next(iter(value.items()))
        if key == "$tensor":
            if not isinstance(inner, int) or not 0 <= inner < len(tensors):
                raise WireError("bad tensor reference")
            return tensors[inner]
        if key == "$float":
            if inner not in ("nan", "inf", "-inf"):
                raise WireError("bad float")
            return float(inner)
        if key == "$text":
            return _text(inner, payload)
        return {key: walk(inner)}

    def walk(value):
        # JSON gives exact types: a leaf (str, number, bool, None) is its own value, without a call of its own
        kind = type(value)
        if kind is dict:
            if len(value) == 1:
                return special(value)
            return {k: (v if type(v) in _JSON_LEAVES else walk(v)) for k, v in value.items()}
        if kind is list:
            return [v if type(v) in _JSON_LEAVES else walk(v) for v in value]
        return value

    try:
        return walk(body)
    except RecursionError:
        raise WireError("message nested too deeply") from None


def _text(spec: object, payload: bytes) -> str:
    if (not isinstance(spec, list) or len(spec) != 2 or not all(type(n) is int and n >= 0 for n in spec)
            or spec[0] + spec[1] > len(payload)):
        raise WireError("bad text reference")
    try:
        return payload[spec[0]:spec[0] + spec[1]].decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        raise WireError("text is not UTF-8") from None


def _tensor(spec: object, payload: bytes) -> torch.Tensor:
    try:
        dtype = DTYPES[spec["dtype"]]
        shape = [int(n) for n in spec["shape"]]
        offset = int(spec["offset"])
    except (KeyError, TypeError, ValueError, OverflowError):
        raise WireError(f"bad tensor description {str(spec)[:80]}") from None
    if len(shape) > 8 or any(n < 0 or n > 1 << 40 for n in shape) or offset < 0:
        raise WireError("bad tensor shape")
    nbytes = math.prod(shape) * ITEM_BYTES[dtype]
    if offset + nbytes > len(payload):
        raise WireError("tensor runs past the end of the message")
    try:
        if nbytes == 0:
            return torch.empty(shape, dtype=dtype)
        # one copy, the tensor's own memory: no two tensors of a message share any
        flat = torch.frombuffer(bytearray(memoryview(payload)[offset:offset + nbytes]), dtype=dtype)
        return flat.reshape(shape)
    except (RuntimeError, OverflowError, ValueError, TypeError) as exc:  # torch refusing a shape
        raise WireError(f"bad tensor shape ({type(exc).__name__})") from None


def send(sock: socket.socket, message: object) -> None:
    sock.sendall(encode(message))


def receive(sock: socket.socket, max_bytes: int, deadline: float | None = None) -> object:
    """Read one message; refuse anything larger than max_bytes (a flood is not a message).

    With a deadline (time.monotonic()), the whole message must arrive by then: a socket timeout
    alone bounds each recv, and a sender dribbling one byte at a time would never hit it."""
    head_len, payload_len = _LENGTHS.unpack(_read_exact(sock, _LENGTHS.size, deadline))
    if head_len > MAX_HEADER or head_len + payload_len > max_bytes:
        raise WireError(f"message of {head_len + payload_len} bytes is over the {max_bytes}-byte limit")
    header = _read_exact(sock, head_len, deadline)
    payload = _read_exact(sock, payload_len, deadline)
    return decode(header, payload)


def _read_exact(sock: socket.socket, n: int, deadline: float | None = None) -> bytes:
    buf = bytearray()
    while len(buf) < n:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("the message did not arrive in time")
            sock.settimeout(left)
        chunk = sock.recv(min(n - len(buf), 1 << 20))
        if not chunk:
            raise EOFError("the other side closed the connection")
        buf += chunk
    return bytes(buf)
