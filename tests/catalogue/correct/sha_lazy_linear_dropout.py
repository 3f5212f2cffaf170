"""Correct single_head_attention submission in its own style: sha lazy linear dropout."""

ASSIGNMENT = 'single_head_attention'
STYLE = 'nn.LazyLinear projections (shapes known only after the first forward pass) and nn.Dropout on the weights, as in training code; graded in eval() mode'
CODE = '''import math

import torch
from torch import nn
import torch.nn.functional as F


def attention(Q, K, V, mask=None, dropout=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    weights = F.softmax(scores, dim=-1)
    if dropout is not None:
        weights = dropout(weights)
    return weights @ V, weights


class SingleHeadAttention(nn.Module):
    def __init__(self, d_model, d_k, p_drop=0.1):
        super().__init__()
        self.W_Q = nn.LazyLinear(d_k, bias=False)
        self.W_K = nn.LazyLinear(d_k, bias=False)
        self.W_V = nn.LazyLinear(d_k, bias=False)
        self.dropout = nn.Dropout(p_drop)

    def forward(self, x_q, x_kv, mask=None):
        return attention(self.W_Q(x_q), self.W_K(x_kv), self.W_V(x_kv), mask, self.dropout)
'''
