from ._snippets import SHA, stub_text

ASSIGNMENT = SHA
TAG = "garbage"
ATTACK = ("rewires the child's replies into garbage the parent must survive: a header nested 200,000 "
          "lists deep, a 10**30-element tensor, a 1e999 offset, load errors that are not a list, "
          "gradients that are not dicts, a length over every limit")
CODE = stub_text(ASSIGNMENT) + '''
import json
import struct
import sys
import zlib

_wire = sys.modules["wire"]
_harness = sys.modules["harness"]
_encode = _wire.encode
_last = [""]


def _frame(header, payload=b""):
    return struct.pack(">QQ", len(header), len(payload)) + header + payload


def _garbage(message):
    if "names" in message:  # the reply to loading this file: its load errors become junk
        junk = "not a list" if len(message["names"]) % 2 else [{"type": None, "where": 5}, 7, "x"]
        return _encode(dict(message, errors=junk))
    kind = zlib.crc32(_last[0].encode()) % 6
    if kind == 1:
        return _frame(b"[" * 200_000 + b"]" * 200_000)
    if kind == 2:
        head = {"body": {"ok": True, "output": {"$tensor": 0}}, "tensors": [{"dtype": "float32",
                "shape": [0, 10 ** 30], "offset": 0}]}
        return _frame(json.dumps(head).encode())
    if kind == 3:
        return _frame(b'{"body": {"ok": true, "output": {"$tensor": 0}}, "tensors": [{"dtype": "float32", '
                      b'"shape": [2], "offset": 1e999}]}')
    if kind == 4:
        return _frame(json.dumps({"body": {"ok": True, "output": [1, 2], "arg_grads": [1], "param_grads": 7,
                                           "param_names": "W", "inputs_changed": 5}, "tensors": []}).encode())
    if kind == 5:
        return struct.pack(">QQ", 1 << 62, 1 << 62)
    return _frame(json.dumps({"body": {"ok": False, "error": {"type": [], "message": {}, "where": 3}},
                              "tensors": []}).encode())


_run = _harness.Harness.run


def _remember(self, request):
    _last[0] = json.dumps(request, sort_keys=True, default=str)[:5000]
    return _run(self, request)


_harness.Harness.run = _remember
_wire.encode = _garbage
'''
TWIN = stub_text(ASSIGNMENT)
