"""Wrong single_head_attention submission: att mask fill typo minus 1e minus9."""

ASSIGNMENT = 'single_head_attention'
CAUGHT_BY = [
    'test_attention_masks',
]
MISTAKE = 'Types -1e-9 instead of -1e9 as the fill value, which is practically 0.'
MISTAKE_ID = 'mask-zero-fill'
CODE = '''
def attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(mask == 0, -1e-9)
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
'''
