"""Wrong single_head_attention submission: att mask after softmax renormalised."""

ASSIGNMENT = 'single_head_attention'
CAUGHT_BY = [
    'test_attention_masks',
]
MISTAKE = (
    'Zeroes the forbidden weights after the softmax and renormalises; a large score on a masked key '
    'underflows every allowed weight (0/0 = NaN).'
)
MISTAKE_ID = 'mask-after-softmax-renormalised'
CODE = '''
def attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1])
    weights = F.softmax(scores, dim=-1)
    if mask is not None:
        weights = weights * mask
        weights = weights / weights.sum(dim=-1, keepdim=True)
    return weights @ V, weights
'''
