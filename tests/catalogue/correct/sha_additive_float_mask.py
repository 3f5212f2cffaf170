"""Correct single_head_attention submission in its own style: sha additive float mask."""

ASSIGNMENT = 'single_head_attention'
STYLE = 'turns the 0/1 mask into an additive float mask (0 where allowed, -inf where forbidden), the way PyTorch treats float masks, and adds it to the scores; bmm for the products'
CODE = '''import math

import torch
from torch import nn
import torch.nn.functional as F


def additive(mask, like):
    return torch.zeros(mask.shape, dtype=like.dtype).masked_fill(mask == 0, float("-inf"))


def attention(Q, K, V, mask=None):
    scores = torch.bmm(Q, K.transpose(1, 2)) / math.sqrt(K.shape[-1])
    if mask is not None:
        scores = scores + additive(mask, scores)
    weights = torch.softmax(scores, dim=-1)
    return torch.bmm(weights, V), weights


class SingleHeadAttention(nn.Module):
    def __init__(self, d_model, d_k):
        super().__init__()
        self.W_Q = nn.Linear(d_model, d_k, bias=False)
        self.W_K = nn.Linear(d_model, d_k, bias=False)
        self.W_V = nn.Linear(d_model, d_k, bias=False)

    def forward(self, x_q, x_kv, mask=None):
        return attention(self.W_Q(x_q), self.W_K(x_kv), self.W_V(x_kv), mask)
'''
