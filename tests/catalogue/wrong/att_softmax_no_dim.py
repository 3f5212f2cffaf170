"""Wrong single_head_attention submission: att softmax no dim."""

ASSIGNMENT = 'single_head_attention'
CAUGHT_BY = [
    'test_attention_values',
    'test_attention_masks',
]
MISTAKE = 'Calls F.softmax without dim, which normalises over the batch for 3-D input.'
CODE = '''
def attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    weights = F.softmax(scores)
    return weights @ V, weights
'''
