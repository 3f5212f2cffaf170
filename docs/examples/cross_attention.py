# %% [markdown]
# # Cross-attention: a decoder attends to a padded encoder sequence
#
# *Lesson: "Cross-Attention with Padded Encoder Sequences".* In an encoder-decoder model the decoder asks the
# questions and the encoder holds the answers: **queries** come from the decoder's states `x_q`, **keys and
# values** from the encoder's states `x_kv`. Source sentences in a batch have different lengths, so the encoder
# sequence is padded to a common length `T_k`; the padded positions are not words and must get **no attention**.
#
# $$Q = x_q W_Q^\top,\; K = x_{kv} W_K^\top,\; V = x_{kv} W_V^\top,\qquad
# \mathrm{out} = \Big(\mathrm{softmax}\big(\tfrac{Q K^\top}{\sqrt{d_k}} \text{ masked with } -\infty\big) V\Big) W_O^\top$$
#
# Conventions (the grader relies on them):
# - `lengths` is an int64 tensor `(B,)`: the number of real (non-padded) encoder positions of each sequence,
#   from 1 to `T_k`; the real positions come first, the padding last: position `j` is real exactly when
#   `j < lengths[b]`.
# - A key padding mask is bool `(B, T_k)`, **True where a key is real**, False where it is padding.
# - `x_q` is `(B, T_q, d_model)`, `x_kv` is `(B, T_k, d_model)`; the output is `(B, T_q, d_model)`.
# - Where the lesson is silent: every sequence has at least one real key (a fully padded row never occurs);
#   inputs are float32 and results must keep float32 precision; the layer holds exactly `W_Q`, `W_K`, `W_V`
#   (`d_model -> d_k`) and `W_O` (`d_k -> d_model`), all `nn.Linear(..., bias=False)`; no input is modified in
#   place; fused attention (`F.scaled_dot_product_attention`, `nn.MultiheadAttention`) may not be used.

# %% role="setup"
import math

import torch
from torch import nn
import torch.nn.functional as F

# %% [markdown] exercise="key_padding_mask"
# ## 1. The key padding mask
#
# From the true lengths of the encoder sequences, build the bool mask `(B, T_k)` that is True at position `j`
# of sequence `b` exactly when `j < lengths[b]` (a real key) and False on the padding.

# %% exercise="key_padding_mask" role="solution"
def key_padding_mask(lengths, T_k):
    """lengths: int64 (B,), each from 1 to T_k (position j is real when j < lengths[b]); T_k: int, the padded length.

    returns: bool (B, T_k), True where the key is real, False where it is padding.
    """
    # BEGIN SOLUTION
    positions = torch.arange(T_k, device=lengths.device)
    return positions[None, :] < lengths[:, None]
    # END SOLUTION

# %% exercise="key_padding_mask" role="spec"
{
    "sizes": {"B": [1, 4], "T_k": [1, 9]},
    "args": {
        "lengths": {"shape": "B", "dtype": "int64", "values": [1, "T_k"]},
        "T_k": {"size": "T_k"},
    },
    "result": "exact",
    "points": 2,
    "hint": "position j of sequence b is real (True) exactly when j < lengths[b]; padding is False.",
    "mistakes": {
        "mask-inverted": {"edit": "comparison-flipped", "at": "positions[None, :] < lengths[:, None]",
                          "to": "positions[None, :] >= lengths[:, None]",
                          "says": "the mask is inverted: it is True on the padding and False on the real keys"},
        "mask-one-too-long": {"edit": "comparison-boundary", "at": "positions[None, :] < lengths[:, None]",
                              "to": "positions[None, :] <= lengths[:, None]",
                              "says": "the mask keeps one padded position too many: position lengths[b] is padding"},
    },
}

# %% [markdown] exercise="CrossAttention"
# ## 2. A cross-attention layer
#
# Project queries from the decoder states `x_q` and keys **and** values from the encoder states `x_kv`; score
# with the scaled dot product $QK^\top/\sqrt{d_k}$ ($d_k$ the projected size); fill the scores of padded keys
# (`key_mask` False) with `-inf` **before** the softmax over the keys; mix the values; project back to
# `d_model` with `W_O`. The mask `(B, T_k)` must broadcast over the queries: `(B, 1, T_k)`.

# %% exercise="CrossAttention" role="solution"
class CrossAttention(nn.Module):
    """Decoder-to-encoder attention with W_Q, W_K, W_V = nn.Linear(d_model, d_k, bias=False) and
    W_O = nn.Linear(d_k, d_model, bias=False)."""

    def __init__(self, d_model, d_k):
        super().__init__()
        # BEGIN SOLUTION
        self.W_Q = nn.Linear(d_model, d_k, bias=False)
        self.W_K = nn.Linear(d_model, d_k, bias=False)
        self.W_V = nn.Linear(d_model, d_k, bias=False)
        self.W_O = nn.Linear(d_k, d_model, bias=False)
        # END SOLUTION

    def forward(self, x_q, x_kv, key_mask):
        """x_q: (B, T_q, d_model) decoder states; x_kv: (B, T_k, d_model) encoder states;
        key_mask: bool (B, T_k), True where the encoder position is real.

        returns: (B, T_q, d_model)
        """
        # BEGIN SOLUTION
        Q = self.W_Q(x_q)
        K = self.W_K(x_kv)
        V = self.W_V(x_kv)
        scores = Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1])
        scores = scores.masked_fill(~key_mask[:, None, :], float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        return self.W_O(weights @ V)
        # END SOLUTION

# %% exercise="CrossAttention" role="spec"
{
    "sizes": {"B": [1, 3], "T_q": [1, 6], "T_k": [1, 7], "d_model": [2, 8], "d_k": [2, 6]},
    "init": {"d_model": {"size": "d_model"}, "d_k": {"size": "d_k"}},
    "args": {
        "x_q": {"shape": "B T_q d_model", "values": [-2, 2]},
        "x_kv": {"shape": "B T_k d_model", "values": [-2, 2]},
        "key_mask": {"mask": "B T_k", "broadcast": False},
    },
    "result": "values",
    "points": 4,
    "hint": "W_O(softmax(Q K^T / sqrt(d_k), padded keys filled with -inf, over the keys) V), "
            "Q from x_q, K and V from x_kv.",
    "mistakes": {
        "keys-from-queries": {"edit": "name-swapped", "at": "self.W_K(x_kv)", "to": "self.W_K(x_q)",
                              "says": "the keys are projected from the decoder states x_q instead of the encoder's x_kv"},
        "mask-inverted": {"edit": "negation-dropped", "at": "~key_mask[:, None, :]",
                          "says": "the padding mask is used inverted: the real keys are hidden and the padding "
                                  "is attended to (True means real, so fill where the mask is False)"},
        "unscaled": {"edit": "divisor-dropped", "at": "Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1])",
                     "says": "the scores are not divided by sqrt(d_k)"},
    },
}
