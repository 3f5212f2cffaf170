"""Correct attention_scores submission in its own style: scores einsum where softmax."""

ASSIGNMENT = 'attention_scores'
STYLE = (
    'einsum everywhere; torch.where masking with torch.finfo(dtype).min; hand-written max-subtracted softmax; '
    'comparison-built masks; entropy via torch.where instead of xlogy.'
)
CODE = '''import math

import torch
from torch import nn
import torch.nn.functional as F


def dot_scores(Q, K):
    return torch.einsum("bqd,bkd->bqk", Q, K)


def scaled_dot_scores(Q, K):
    return torch.einsum("bqd,bkd->bqk", Q, K) * K.size(-1) ** -0.5


class GeneralScore(nn.Module):
    def __init__(self, d_q, d_k):
        super().__init__()
        self.W = nn.Linear(d_k, d_q, bias=False)

    def forward(self, Q, K):
        return torch.einsum("bqi,ij,bkj->bqk", Q, self.W.weight, K)


class AdditiveScore(nn.Module):
    def __init__(self, d_q, d_k, d_h):
        super().__init__()
        self.W_q = nn.Linear(d_q, d_h, bias=False)
        self.W_k = nn.Linear(d_k, d_h, bias=False)
        self.v = nn.Linear(d_h, 1, bias=False)

    def forward(self, Q, K):
        q = torch.einsum("bqi,hi->bqh", Q, self.W_q.weight)
        k = torch.einsum("bki,hi->bkh", K, self.W_k.weight)
        hidden = torch.tanh(q[:, :, None, :] + k[:, None, :, :])
        return torch.einsum("bqkh,h->bqk", hidden, self.v.weight[0])


def apply_mask(scores, mask):
    lowest = torch.tensor(torch.finfo(scores.dtype).min, dtype=scores.dtype)
    return torch.where(mask.bool(), scores, lowest)


def attention_weights(scores, mask=None):
    if mask is not None:
        scores = apply_mask(scores, mask)
    shifted = scores - scores.amax(dim=-1, keepdim=True)
    exps = shifted.exp()
    return exps / exps.sum(dim=-1, keepdim=True)


def causal_mask(T):
    positions = torch.arange(T)
    return positions[None, :] <= positions[:, None]


def padding_mask(lengths, T_k):
    return torch.arange(T_k)[None, None, :] < lengths[:, None, None]


def softmax_entropy(weights):
    safe_log = torch.where(weights > 0, weights.log(), torch.zeros_like(weights))
    return -(weights * safe_log).sum(dim=-1)
'''
