from ._snippets import SHA, solution_text

ASSIGNMENT = SHA
TAG = "flood"
ATTACK = "80 MB of output at import (print, sys.__stdout__, raw fds) and 5 MB more at every call"
CODE = solution_text(ASSIGNMENT) + '''
import os
import sys

_MB = "x" * (1 << 20)
for _ in range(60):
    print(_MB)
for _ in range(50_000):
    print("line of output number", _)
for _ in range(6):
    sys.__stdout__.write(_MB)
    os.write(1, _MB.encode())
    os.write(2, _MB.encode())

_right_attention = attention


def attention(Q, K, V, mask=None):
    for _ in range(5):
        print(_MB)
    return _right_attention(Q, K, V, mask)
'''
TWIN = solution_text(ASSIGNMENT)
EVIDENCE = "x" * 4000  # and the result keeps at most 16 KiB of it
SAME_SCORE = True
