"""Correct single_head_attention submission in its own style: sha own helper named sdpa."""

ASSIGNMENT = 'single_head_attention'
STYLE = "a hand-written helper that happens to be called scaled_dot_product_attention (as in PyTorch's docs and tutorials), with F imported; attention and the layer both call it"
CODE = '''import math

import torch
from torch import nn
import torch.nn.functional as F


def scaled_dot_product_attention(query, key, value, mask=None):
    scale = 1.0 / math.sqrt(query.size(-1))
    scores = torch.matmul(query, key.transpose(-2, -1)) * scale
    if mask is not None:
        scores = scores.masked_fill(mask.logical_not(), float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return torch.matmul(weights, value), weights


def attention(Q, K, V, mask=None):
    return scaled_dot_product_attention(Q, K, V, mask)


class SingleHeadAttention(nn.Module):
    def __init__(self, d_model, d_k):
        super().__init__()
        self.W_Q = nn.Linear(d_model, d_k, bias=False)
        self.W_K = nn.Linear(d_model, d_k, bias=False)
        self.W_V = nn.Linear(d_model, d_k, bias=False)

    def forward(self, x_q, x_kv, mask=None):
        return scaled_dot_product_attention(self.W_Q(x_q), self.W_K(x_kv), self.W_V(x_kv), mask)
'''
