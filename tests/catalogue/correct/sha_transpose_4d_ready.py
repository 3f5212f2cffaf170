"""Correct single_head_attention submission in its own style: sha transpose 4d ready."""

ASSIGNMENT = 'single_head_attention'
STYLE = (
    "batch-agnostic matmul with transpose(-2, -1) (works for (B, H, T, d) too), logical_not() + float('-inf') "
    'masking, F.softmax with the scale folded into the queries (Q * d_k ** -0.5) before the product.'
)
CODE = '''import math

import torch
from torch import nn
import torch.nn.functional as F


def attention(Q, K, V, mask=None):
    Q = Q * K.shape[-1] ** -0.5
    scores = torch.matmul(Q, K.transpose(-2, -1))
    if mask is not None:
        scores = scores.masked_fill(torch.as_tensor(mask).logical_not(), float("-inf"))
    weights = F.softmax(scores, dim=-1)
    return torch.matmul(weights, V), weights


class SingleHeadAttention(nn.Module):
    def __init__(self, d_model, d_k):
        super().__init__()
        self.W_Q = nn.Linear(d_model, d_k, bias=False)
        self.W_K = nn.Linear(d_model, d_k, bias=False)
        self.W_V = nn.Linear(d_model, d_k, bias=False)

    def forward(self, x_q, x_kv, mask=None):
        return attention(self.W_Q(x_q), self.W_K(x_kv), self.W_V(x_kv), mask=mask)
'''
