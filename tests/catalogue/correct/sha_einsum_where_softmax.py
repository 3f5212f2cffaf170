"""Correct single_head_attention submission in its own style: sha einsum where softmax."""

ASSIGNMENT = 'single_head_attention'
STYLE = (
    'einsum scores and mixing; torch.where masking with -inf; hand-written max-subtracted softmax; layer '
    'projects with F.linear on the W_Q/W_K/W_V weights and multiplies by a precomputed d_k ** -0.5.'
)
CODE = '''import math

import torch
from torch import nn
import torch.nn.functional as F


def attention(Q, K, V, mask=None):
    scores = torch.einsum("bqd,bkd->bqk", Q, K) / math.sqrt(K.shape[-1])
    if mask is not None:
        scores = torch.where(mask.bool(), scores, torch.tensor(float("-inf")))
    shifted = scores - scores.amax(dim=-1, keepdim=True)
    exps = torch.exp(shifted)
    weights = exps / exps.sum(dim=-1, keepdim=True)
    return torch.einsum("bqk,bkv->bqv", weights, V), weights


class SingleHeadAttention(nn.Module):
    def __init__(self, d_model, d_k):
        super().__init__()
        self.W_Q = nn.Linear(d_model, d_k, bias=False)
        self.W_K = nn.Linear(d_model, d_k, bias=False)
        self.W_V = nn.Linear(d_model, d_k, bias=False)
        self.scale = d_k ** -0.5

    def forward(self, x_q, x_kv, mask=None):
        Q = F.linear(x_q, self.W_Q.weight)
        K = F.linear(x_kv, self.W_K.weight)
        V = F.linear(x_kv, self.W_V.weight)
        scores = torch.einsum("bqd,bkd->bqk", Q, K) * self.scale
        if mask is not None:
            scores = torch.where(mask.bool(), scores, torch.tensor(float("-inf")))
        weights = torch.softmax(scores, dim=-1)
        return torch.einsum("bqk,bkv->bqv", weights, V), weights
'''
