"""Wrong attention_scores submission: dot T on 3d."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_dot_scores_edge_shapes',
    'test_dot_scores_values',
]
MISTAKE = 'Uses K.T on a 3-D tensor, which reverses all three dimensions instead of swapping the last two.'
MISTAKE_ID = 'transpose-all-dims'
CODE = '''
def dot_scores(Q, K):
    return Q @ K.T
'''
