"""Wrong single_head_attention submission: att unscaled."""

ASSIGNMENT = 'single_head_attention'
CAUGHT_BY = [
    'test_attention_values',
    'test_attention_masks',
    'test_attention_gradients',
]
MISTAKE = 'Forgets the 1/sqrt(d_k) scale.'
MISTAKE_ID = 'scale-missing'
CODE = '''
def attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1)
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
'''
