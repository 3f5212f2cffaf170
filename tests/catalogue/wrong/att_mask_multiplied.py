"""Wrong single_head_attention submission: att mask multiplied."""

ASSIGNMENT = 'single_head_attention'
CAUGHT_BY = [
    'test_attention_masks',
]
MISTAKE = 'Multiplies the scores by the mask instead of filling with -inf.'
MISTAKE_ID = 'mask-zero-fill'
CODE = '''
def attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1])
    if mask is not None:
        scores = scores * mask
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
'''
