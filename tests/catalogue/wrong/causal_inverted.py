"""Wrong attention_scores submission: causal inverted."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_causal_mask',
]
MISTAKE = 'Uses torch.triu, marking the future keys as allowed instead of the past ones.'
MISTAKE_ID = 'causal-inverted'
CODE = '''
def causal_mask(T):
    return torch.triu(torch.ones(T, T, dtype=torch.bool))
'''
