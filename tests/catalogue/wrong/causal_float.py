"""Wrong attention_scores submission: causal float."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_causal_mask',
]
MISTAKE = 'Returns a 0/1 float tensor instead of a bool mask.'
MISTAKE_ID = 'mask-not-bool'
CODE = '''
def causal_mask(T):
    return torch.tril(torch.ones(T, T))
'''
