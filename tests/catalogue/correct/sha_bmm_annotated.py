"""Correct single_head_attention submission in its own style: sha bmm annotated."""

ASSIGNMENT = 'single_head_attention'
STYLE = (
    'torch.bmm with .mT, Annotated-Transformer `masked_fill_(mask == 0, -1e9)` on the freshly computed scores, '
    'scores.softmax(-1); the layer calls attention() and then keeps its own copy of the weights.'
)
CODE = '''import math

import torch
from torch import nn
import torch.nn.functional as F


def attention(Q, K, V, mask=None):
    d_k = Q.size(-1)
    scores = torch.bmm(Q, K.mT) / math.sqrt(d_k)
    if mask is not None:
        scores.masked_fill_(mask == 0, -1e9)  # scores is our own tensor: in place is fine here
    p_attn = scores.softmax(-1)
    return torch.bmm(p_attn, V), p_attn


class SingleHeadAttention(nn.Module):
    def __init__(self, d_model, d_k):
        super().__init__()
        self.d_k = d_k
        self.W_Q, self.W_K, self.W_V = (nn.Linear(d_model, d_k, bias=False) for _ in range(3))
        self.attn = None

    def forward(self, x_q, x_kv, mask=None):
        query, key, value = self.W_Q(x_q), self.W_K(x_kv), self.W_V(x_kv)
        x, self.attn = attention(query, key, value, mask=mask)
        return x, self.attn
'''
