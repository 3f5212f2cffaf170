"""Correct attention_scores submission in its own style: scores matmul annotated."""

ASSIGNMENT = 'attention_scores'
STYLE = (
    'torch.matmul with .mT and F.linear, Annotated-Transformer -1e9 fill via `mask == 0`, scores.softmax(-1), '
    'triu(...).logical_not() causal mask, expand-based padding mask, Categorical(probs).entropy().'
)
CODE = '''import math

import torch
from torch import nn
import torch.nn.functional as F


def dot_scores(Q, K):
    return torch.matmul(Q, K.mT)


def scaled_dot_scores(Q, K):
    return torch.matmul(Q, K.mT) / K.size(-1) ** 0.5


class GeneralScore(nn.Module):
    def __init__(self, d_q, d_k):
        super().__init__()
        self.W = nn.Linear(d_k, d_q, bias=False)

    def forward(self, Q, K):
        return torch.matmul(Q, F.linear(K, self.W.weight).mT)


class AdditiveScore(nn.Module):
    def __init__(self, d_q, d_k, d_h):
        super().__init__()
        self.W_q = nn.Linear(d_q, d_h, bias=False)
        self.W_k = nn.Linear(d_k, d_h, bias=False)
        self.v = nn.Linear(d_h, 1, bias=False)

    def forward(self, Q, K):
        T_q, T_k = Q.size(1), K.size(1)
        q = self.W_q(Q).unsqueeze(2).expand(-1, -1, T_k, -1)
        k = self.W_k(K).unsqueeze(1).expand(-1, T_q, -1, -1)
        return self.v(torch.tanh(q + k))[..., 0]


def apply_mask(scores, mask):
    return scores.masked_fill(mask == 0, -1e9)


def attention_weights(scores, mask=None):
    if mask is not None:
        scores = apply_mask(scores, mask)
    return scores.softmax(-1)


def causal_mask(T):
    return torch.ones(T, T).triu(diagonal=1).logical_not()


def padding_mask(lengths, T_k):
    B = lengths.size(0)
    return (torch.arange(T_k).expand(B, T_k) < lengths.unsqueeze(1)).view(B, 1, T_k)


def softmax_entropy(weights):
    return torch.distributions.Categorical(probs=weights, validate_args=False).entropy()
'''
