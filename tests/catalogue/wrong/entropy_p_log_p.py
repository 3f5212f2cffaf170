"""Wrong attention_scores submission: entropy p log p."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_softmax_entropy_zeros',
]
MISTAKE = 'Computes -(p * p.log()).sum(-1), which is NaN wherever a weight is exactly 0.'
MISTAKE_ID = 'entropy-nan-at-zero'
CODE = '''
def softmax_entropy(weights):
    return -(weights * weights.log()).sum(dim=-1)
'''
