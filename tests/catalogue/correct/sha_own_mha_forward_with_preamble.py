"""Correct single_head_attention submission in its own style: sha own mha forward with preamble."""

ASSIGNMENT = 'single_head_attention'
STYLE = ("a student's own multi_head_attention_forward, written out by hand in the manner of PyTorch's functional "
         "code: it starts with the has_torch_function / handle_torch_function preamble and takes the packed "
         "projection weight; attention and the layer both call it")
CODE = '''import math

import torch
from torch import nn
from torch.overrides import has_torch_function, handle_torch_function


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight=None,
                                 attn_mask=None, need_weights=True):
    """Scaled dot-product attention by hand: project (if a packed weight is given), score, mask, softmax, mix."""
    tens_ops = (query, key, value)
    if has_torch_function(tens_ops):
        return handle_torch_function(multi_head_attention_forward, tens_ops, query, key, value,
                                     embed_dim_to_check, num_heads, in_proj_weight, attn_mask=attn_mask,
                                     need_weights=need_weights)
    head_dim = embed_dim_to_check // num_heads
    if in_proj_weight is not None:
        w_q, w_k, w_v = in_proj_weight.chunk(3, dim=0)
        query, key, value = query @ w_q.transpose(0, 1), key @ w_k.transpose(0, 1), value @ w_v.transpose(0, 1)
    scores = query @ key.transpose(-2, -1) / math.sqrt(head_dim)
    if attn_mask is not None:
        scores = scores.masked_fill(attn_mask == 0, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ value, weights


def attention(Q, K, V, mask=None):
    return multi_head_attention_forward(Q, K, V, K.shape[-1], 1, attn_mask=mask)


class SingleHeadAttention(nn.Module):
    def __init__(self, d_model, d_k):
        super().__init__()
        self.d_k = d_k
        self.W_Q = nn.Linear(d_model, d_k, bias=False)
        self.W_K = nn.Linear(d_model, d_k, bias=False)
        self.W_V = nn.Linear(d_model, d_k, bias=False)

    def forward(self, x_q, x_kv, mask=None):
        packed = torch.cat([self.W_Q.weight, self.W_K.weight, self.W_V.weight])
        return multi_head_attention_forward(x_q, x_kv, x_kv, self.d_k, 1, packed, attn_mask=mask)
'''
