"""Wrong attention_scores submission: causal diagonal excluded."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_causal_mask',
]
MISTAKE = 'Uses tril(diagonal=-1), so a query may not attend to its own position.'
MISTAKE_ID = 'causal-diagonal-excluded'
CODE = '''
def causal_mask(T):
    return torch.tril(torch.ones(T, T, dtype=torch.bool), diagonal=-1)
'''
