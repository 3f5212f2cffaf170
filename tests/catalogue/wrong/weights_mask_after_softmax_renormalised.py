"""Wrong attention_scores submission: weights mask after softmax renormalised."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_attention_weights_mask',
]
MISTAKE = (
    'Applies softmax to the unmasked scores, zeroes forbidden weights and renormalises; a large score on a '
    'masked key underflows every allowed weight to 0 (0/0 = NaN).'
)
MISTAKE_ID = 'mask-after-softmax-renormalised'
CODE = '''
def attention_weights(scores, mask=None):
    weights = F.softmax(scores, dim=-1)
    if mask is not None:
        weights = weights * mask
        weights = weights / weights.sum(dim=-1, keepdim=True)
    return weights
'''
