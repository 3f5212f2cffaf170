"""Wrong single_head_attention submission: att mask after softmax."""

ASSIGNMENT = 'single_head_attention'
CAUGHT_BY = [
    'test_attention_masks',
]
MISTAKE = 'Zeroes the forbidden weights after the softmax, so masked rows no longer sum to 1.'
MISTAKE_ID = 'mask-after-softmax'
CODE = '''
def attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1])
    weights = F.softmax(scores, dim=-1)
    if mask is not None:
        weights = weights * mask
    return weights @ V, weights
'''
