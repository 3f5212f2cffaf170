from ._snippets import SHA, solution_text

ASSIGNMENT = SHA
TAG = "membomb"
ATTACK = ("asks for 50 GB at once (bytearray, torch, numpy), then grabs and touches 1 GiB blocks until "
          "refused; attention with a mask asks for 50 GB without catching the error")
CODE = solution_text(ASSIGNMENT) + '''
import numpy

_attempts = []
for make in (lambda: bytearray(50 << 30), lambda: torch.ones(50 << 30, dtype=torch.uint8),
             lambda: numpy.ones(50 << 30, dtype=numpy.uint8)):
    try:
        make()
        _attempts.append("got 50 GB")
    except (MemoryError, RuntimeError) as exc:
        _attempts.append(type(exc).__name__)
_blocks = []
try:
    for _ in range(50):
        _blocks.append(bytearray(1 << 30))
except MemoryError:
    pass
print("50 GB:", _attempts, "then held", len(_blocks), "GiB")
del _blocks

_right_attention = attention


def attention(Q, K, V, mask=None):
    if mask is not None:
        hoard = bytearray(50 << 30)
    return _right_attention(Q, K, V, mask)
'''
TWIN = solution_text(ASSIGNMENT)
EVIDENCE = "MemoryError"
