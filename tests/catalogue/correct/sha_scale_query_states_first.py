"""Correct single_head_attention submission in its own style: sha scale query states first."""

ASSIGNMENT = 'single_head_attention'
STYLE = 'scales x_q by d_k ** -0.5 before the (linear) query projection, equal by linearity; masks with torch.finfo(dtype).min'
CODE = '''import math

import torch
from torch import nn
import torch.nn.functional as F


def attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(mask == 0, torch.finfo(scores.dtype).min)
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights


class SingleHeadAttention(nn.Module):
    def __init__(self, d_model, d_k):
        super().__init__()
        self.W_Q = nn.Linear(d_model, d_k, bias=False)
        self.W_K = nn.Linear(d_model, d_k, bias=False)
        self.W_V = nn.Linear(d_model, d_k, bias=False)
        self.d_k = d_k

    def forward(self, x_q, x_kv, mask=None):
        Q = self.W_Q(x_q * self.d_k ** -0.5)
        K, V = self.W_K(x_kv), self.W_V(x_kv)
        scores = Q @ K.transpose(-2, -1)
        if mask is not None:
            scores = scores.masked_fill(mask == 0, torch.finfo(scores.dtype).min)
        weights = F.softmax(scores, dim=-1)
        return weights @ V, weights
'''
