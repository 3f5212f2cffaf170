"""Wrong single_head_attention submission: Writes d_k ** 1/2, which is d_k / 2 (equal to sqrt(d_k) only at d_k = 4)."""

ASSIGNMENT = 'single_head_attention'
CAUGHT_BY = [
    'test_attention_values',
    'test_attention_masks',
    'test_attention_gradients',
]
MISTAKE = 'Writes d_k ** 1/2, which is d_k / 2 (equal to sqrt(d_k) only at d_k = 4).'
MISTAKE_ID = 'scale-power-precedence'
CODE = '''def attention(Q, K, V, mask=None):
    d_k = K.shape[-1]
    scores = Q @ K.transpose(-2, -1) / d_k ** 1/2
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
'''
