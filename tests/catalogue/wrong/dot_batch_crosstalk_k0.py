"""Wrong attention_scores submission: dot batch crosstalk k0."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_dot_scores_values',
]
MISTAKE = 'Uses the keys of the first batch item for every item (K[0] broadcast over the batch).'
MISTAKE_ID = 'batch-crosstalk'
CODE = '''
def dot_scores(Q, K):
    return Q @ K[0].transpose(-2, -1)
'''
