"""Wrong attention_scores submission: entropy in bits."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_softmax_entropy_values',
    'test_softmax_entropy_zeros',
]
MISTAKE = 'Uses log base 2 (bits) instead of the natural log (nats).'
MISTAKE_ID = 'entropy-in-bits'
CODE = '''
def softmax_entropy(weights):
    return -torch.special.xlogy(weights, weights).sum(dim=-1) / math.log(2)
'''
