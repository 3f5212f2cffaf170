"""Wrong single_head_attention submission: att k at q."""

ASSIGNMENT = 'single_head_attention'
CAUGHT_BY = [
    'test_attention_mixes_values',
    'test_attention_values',
    'test_attention_masks',
    'test_attention_gradients',
]
MISTAKE = 'Computes K @ Q^T (keys as rows) instead of Q @ K^T.'
MISTAKE_ID = 'k-at-q'
CODE = '''
def attention(Q, K, V, mask=None):
    scores = K @ Q.transpose(-2, -1) / math.sqrt(K.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    weights = F.softmax(scores, dim=-1)
    return weights.transpose(-2, -1) @ V, weights
'''
