"""Wrong single_head_attention submission: att divide by dk."""

ASSIGNMENT = 'single_head_attention'
CAUGHT_BY = [
    'test_attention_values',
    'test_attention_masks',
    'test_attention_gradients',
]
MISTAKE = 'Divides the scores by d_k instead of sqrt(d_k).'
MISTAKE_ID = 'scale-by-dk'
CODE = '''
def attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / K.shape[-1]
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
'''
