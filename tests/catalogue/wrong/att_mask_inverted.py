"""Wrong single_head_attention submission: att mask inverted."""

ASSIGNMENT = 'single_head_attention'
CAUGHT_BY = [
    'test_attention_masks',
]
MISTAKE = 'Fills where mask == 1, i.e. forbids the allowed keys (nn.MultiheadAttention polarity).'
MISTAKE_ID = 'mask-inverted'
CODE = '''
def attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(mask == 1, float("-inf"))
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
'''
