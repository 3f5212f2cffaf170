"""Wrong attention_scores submission: entropy mean not sum."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_softmax_entropy_values',
    'test_softmax_entropy_zeros',
]
MISTAKE = 'Averages -p log p over the keys instead of summing.'
CODE = '''
def softmax_entropy(weights):
    return -torch.special.xlogy(weights, weights).mean(dim=-1)
'''
