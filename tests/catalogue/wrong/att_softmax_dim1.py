"""Wrong single_head_attention submission: att softmax dim1."""

ASSIGNMENT = 'single_head_attention'
CAUGHT_BY = [
    'test_attention_values',
    'test_attention_masks',
]
MISTAKE = 'Takes the softmax over dim 1 (the queries) instead of the keys.'
MISTAKE_ID = 'softmax-wrong-dim'
CODE = '''
def attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    weights = F.softmax(scores, dim=1)
    return weights @ V, weights
'''
