"""Wrong single_head_attention submission: att returns weights first."""

ASSIGNMENT = 'single_head_attention'
CAUGHT_BY = [
    'test_attention_mixes_values',
    'test_attention_values',
    'test_attention_masks',
    'test_attention_gradients',
]
MISTAKE = 'Returns (weights, output) instead of (output, weights).'
MISTAKE_ID = 'returns-weights-first'
CODE = '''
def attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    weights = F.softmax(scores, dim=-1)
    return weights, weights @ V
'''
