# %% [markdown]
# # Multi-head attention: h heads side by side
#
# *Lesson: "Multi-Head Attention" (Module 10.1, after "Attention").* One attention head gives each query one
# distribution over the keys. **Multi-head attention** runs $h$ heads side by side, each in its own subspace of
# size $d_\text{head} = d_\text{model} / h$, and joins them:
#
# $$\mathrm{MultiHead}(x_q, x_{kv}) = \mathrm{Concat}(\text{head}_1, \dots, \text{head}_h)\, W_O^\top, \qquad
# \text{head}_i = \mathrm{softmax}\!\left(\frac{Q_i K_i^\top}{\sqrt{d_\text{head}}}\right) V_i .$$
#
# The pipeline: **project** Q/K/V with $d_\text{model} \times d_\text{model}$ maps → **split** each into $h$ heads
# → **scaled dot-product attention per head** → **concatenate** the heads → **output projection** $W_O$.
#
# Conventions (the grader relies on them):
# - A sequence of states is `(B, T, d_model)`; split into heads it is `(B, h, T, d_head)`: head $i$ holds the
#   features `i * d_head` to `(i + 1) * d_head - 1` of every position.
# - A mask is 1/`True` where a key is **allowed**, 0/`False` where it is forbidden, `(B, T_q, T_k)` or any shape
#   that broadcasts to it; every head uses the same mask. A masked key gets weight exactly 0 (fill with `-inf`).
# - Fused attention may **not** run inside your code (`F.scaled_dot_product_attention`, `nn.MultiheadAttention`).

# %% role="setup"
import math

import torch
from torch import nn
import torch.nn.functional as F

# %% [markdown] exercise="split_heads"
# ## 1. Splitting d_model into h heads
#
# Reshape the last dimension `d_model` into `(h, d_head)` and move the head axis in front of the positions, so
# that each head sees its own slice of features at every position: `(B, T, d_model) → (B, h, T, d_head)`.

# %% exercise="split_heads" role="solution"
def split_heads(x, h):
    """x: (B, T, d_model) with d_model divisible by h; returns (B, h, T, d_model // h)."""
    # BEGIN SOLUTION
    B, T, d_model = x.shape
    return x.reshape(B, T, h, d_model // h).transpose(1, 2)
    # END SOLUTION

# %% exercise="split_heads" role="spec"
{
    "sizes": {"B": [1, 3], "T": [1, 6], "h": [1, 4], "d_head": [1, 4], "d_model": "h * d_head"},
    "args": {
        "x": {"shape": "B T d_model", "values": [-2, 2]},
        "h": {"size": "h"},
    },
    "result": "values",
    "points": 2,
    "hint": "Reshape (B, T, d_model) to (B, T, h, d_head), then swap the T and h axes: (B, h, T, d_head).",
    "mistakes": {
        "head-axis-not-moved": {"edit": "call-transpose-dropped",
                                "at": "x.reshape(B, T, h, d_model // h).transpose(1, 2)",
                                "to": "x.reshape(B, T, h, d_model // h)",
                                "says": "the features are cut into heads, but the head axis stays after the "
                                        "positions: (B, T, h, d_head); move it in front of them, (B, h, T, d_head)"},
    },
}

# %% [markdown] exercise="MultiHeadAttention"
# ## 2. A multi-head attention layer
#
# Four bias-free linear maps, each `nn.Linear(d_model, d_model, bias=False)`: `W_Q`, `W_K`, `W_V` and the output
# projection `W_O`. Project, split each of Q, K, V into `h` heads (your `split_heads`), run scaled dot-product
# attention in every head at once (scale by $1/\sqrt{d_\text{head}}$, the size of one head, not
# $1/\sqrt{d_\text{model}}$), concatenate the heads back to `(B, T_q, d_model)` and apply `W_O`.
# `forward` returns the output only.

# %% exercise="MultiHeadAttention" role="solution"
class MultiHeadAttention(nn.Module):
    """h heads of scaled dot-product attention; W_Q, W_K, W_V, W_O = nn.Linear(d_model, d_model, bias=False)."""

    def __init__(self, d_model, h):
        super().__init__()
        # BEGIN SOLUTION
        self.h = h
        self.d_head = d_model // h
        self.W_Q = nn.Linear(d_model, d_model, bias=False)
        self.W_K = nn.Linear(d_model, d_model, bias=False)
        self.W_V = nn.Linear(d_model, d_model, bias=False)
        self.W_O = nn.Linear(d_model, d_model, bias=False)
        # END SOLUTION

    def forward(self, x_q, x_kv, mask=None):
        """x_q: (B, T_q, d_model); x_kv: (B, T_k, d_model); mask: None or broadcastable to (B, T_q, T_k).

        returns: output (B, T_q, d_model)
        """
        # BEGIN SOLUTION
        B, T_q, d_model = x_q.shape
        d_head = d_model // self.h
        T_k = x_kv.shape[1]
        Q = split_heads(self.W_Q(x_q), self.h)     # (B, h, T_q, d_head)
        K = split_heads(self.W_K(x_kv), self.h)    # (B, h, T_k, d_head)
        V = split_heads(self.W_V(x_kv), self.h)
        scores = Q @ K.transpose(-2, -1) / math.sqrt(d_head)        # (B, h, T_q, T_k)
        if mask is not None:
            scores = scores.masked_fill(mask.unsqueeze(-3) == 0, float("-inf"))
        weights = F.softmax(scores, dim=-1)
        heads = weights @ V                                         # (B, h, T_q, d_head)
        concat = heads.transpose(1, 2).reshape(B, T_q, d_model)     # concatenate the heads
        return self.W_O(concat)
        # END SOLUTION

# %% exercise="MultiHeadAttention" role="spec"
{
    "sizes": {"B": [1, 3], "Tq": [1, 6], "Tk": [1, 6], "h": [1, 4], "d_head": [2, 4], "d_model": "h * d_head"},
    "init": {"d_model": {"size": "d_model"}, "h": {"size": "h"}},
    "args": {
        "x_q": {"shape": "B Tq d_model", "values": [-2, 2]},
        "x_kv": {"shape": "B Tk d_model", "values": [-2, 2]},
        "mask": {"mask": "B Tq Tk"},
    },
    "result": "values",
    "points": 4,
    "hint": "Per head: softmax(Q_i K_i^T / sqrt(d_head)) over the keys, times V_i; heads concatenated back to "
            "(B, T_q, d_model) in head order, then W_O.",
    "mistakes": {
        "scores-not-scaled": {"edit": "divisor-dropped", "at": "Q @ K.transpose(-2, -1) / math.sqrt(d_head)",
                              "says": "the scores are not divided by sqrt(d_head): with d_head-sized heads their "
                                      "spread grows with d_head and the softmax saturates"},
        "divided-by-d-head": {"edit": "call-sqrt-dropped", "at": "math.sqrt(d_head)", "to": "d_head",
                              "says": "the scores are divided by d_head, not by sqrt(d_head): the dot product of "
                                      "two d_head-sized vectors has variance about d_head, so its spread is "
                                      "sqrt(d_head)"},
        "heads-concatenated-without-transpose": {
            "edit": "call-transpose-dropped", "at": "heads.transpose(1, 2)",
            "to": "heads",
            "says": "the heads are reshaped from (B, h, T_q, d_head) straight to (B, T_q, d_model), which mixes "
                    "positions: move the head axis back behind the positions (B, T_q, h, d_head) before joining"},
    },
}
