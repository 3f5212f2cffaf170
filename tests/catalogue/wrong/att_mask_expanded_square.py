"""Wrong single_head_attention submission: Expands the mask to (B, T_k, T_k), as if queries and keys always had the same length."""

ASSIGNMENT = 'single_head_attention'
CAUGHT_BY = [
    'test_attention_masks',
]
MISTAKE = 'Expands the mask to (B, T_k, T_k), as if queries and keys always had the same length.'
MISTAKE_ID = 'mask-expanded-square'
CODE = '''def attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1])
    if mask is not None:
        T = K.shape[1]
        mask = mask.expand(K.shape[0], T, T)
        scores = scores.masked_fill(mask == 0, float("-inf"))
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
'''
