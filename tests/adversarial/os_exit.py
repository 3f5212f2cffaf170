from ._snippets import SHA, solution_text

ASSIGNMENT = SHA
TAG = "osexit"
ATTACK = "os._exit(0) inside attention and SIGKILL to itself inside forward (no exception to catch)"
CODE = solution_text(ASSIGNMENT) + '''
import os
import signal

_Right = SingleHeadAttention


def attention(Q, K, V, mask=None):
    os._exit(0)


class SingleHeadAttention(_Right):
    def forward(self, x_q, x_kv, mask=None):
        os.kill(os.getpid(), signal.SIGKILL)
'''
TWIN = solution_text(ASSIGNMENT)
EVIDENCE = "stopped the Python process"
