"""Wrong attention_scores submission: entropy wrong dim."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_softmax_entropy_values',
]
MISTAKE = 'Sums over dim 0 instead of the last dim (the keys).'
MISTAKE_ID = 'entropy-wrong-dim'
CODE = '''
def softmax_entropy(weights):
    return -torch.special.xlogy(weights, weights).sum(dim=0)
'''
