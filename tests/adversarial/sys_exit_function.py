from ._snippets import SHA, solution_text

ASSIGNMENT = SHA
TAG = "exitfn"
ATTACK = "sys.exit(0) inside attention, KeyboardInterrupt inside forward, SystemExit from __init__"
CODE = solution_text(ASSIGNMENT) + '''
import sys

_right_attention = attention
_Right = SingleHeadAttention


def attention(Q, K, V, mask=None):
    print("OK, all checks passed")
    sys.exit(0)


class SingleHeadAttention(_Right):
    def __init__(self, d_model, d_k):
        if d_model == 8:
            raise SystemExit(0)
        super().__init__(d_model, d_k)

    def forward(self, x_q, x_kv, mask=None):
        raise KeyboardInterrupt
'''
TWIN = solution_text(ASSIGNMENT)
EVIDENCE = "SystemExit"
