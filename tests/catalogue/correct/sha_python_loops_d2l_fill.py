"""Correct single_head_attention submission in its own style: sha python loops d2l fill."""

ASSIGNMENT = 'single_head_attention'
STYLE = (
    'explicit loops over batch, query and key with torch.dot; d2l-style -1e6 fill on `mask.bool()`; the layer '
    'reuses attention() and reads d_k from W_K.out_features.'
)
CODE = '''import math

import torch
from torch import nn
import torch.nn.functional as F


def attention(Q, K, V, mask=None):
    B, T_q, d_k = Q.shape
    T_k = K.shape[1]
    allowed = None if mask is None else mask.bool().expand(B, T_q, T_k)
    outputs, all_weights = [], []
    for b in range(B):
        out_rows, weight_rows = [], []
        for i in range(T_q):
            scores = []
            for j in range(T_k):
                s = torch.dot(Q[b, i], K[b, j]) / math.sqrt(d_k)
                if allowed is not None and not allowed[b, i, j]:
                    s = s * 0 - 1e6
                scores.append(s)
            w = torch.softmax(torch.stack(scores), dim=0)
            weight_rows.append(w)
            out_rows.append(sum(w[j] * V[b, j] for j in range(T_k)))
        outputs.append(torch.stack(out_rows))
        all_weights.append(torch.stack(weight_rows))
    return torch.stack(outputs), torch.stack(all_weights)


class SingleHeadAttention(nn.Module):
    def __init__(self, d_model, d_k):
        super().__init__()
        self.W_Q = nn.Linear(d_model, d_k, bias=False)
        self.W_K = nn.Linear(d_model, d_k, bias=False)
        self.W_V = nn.Linear(d_model, d_k, bias=False)

    def forward(self, x_q, x_kv, mask=None):
        return attention(self.W_Q(x_q), self.W_K(x_kv), self.W_V(x_kv), mask)
'''
