"""Wrong attention_scores submission: weights mask after softmax."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_attention_weights_mask',
]
MISTAKE = 'Applies softmax first and then zeroes the forbidden weights, so rows no longer sum to 1.'
MISTAKE_ID = 'mask-after-softmax'
CODE = '''
def attention_weights(scores, mask=None):
    weights = F.softmax(scores, dim=-1)
    if mask is not None:
        weights = weights * mask
    return weights
'''
