"""Wrong attention_scores submission: entropy missing minus."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_softmax_entropy_values',
    'test_softmax_entropy_zeros',
]
MISTAKE = 'Forgets the minus sign and returns sum p log p (a negative number).'
MISTAKE_ID = 'entropy-missing-minus'
CODE = '''
def softmax_entropy(weights):
    return torch.special.xlogy(weights, weights).sum(dim=-1)
'''
