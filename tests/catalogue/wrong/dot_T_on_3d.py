"""Wrong attention_scores submission: dot T on 3d."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_dot_scores_shape',
    'test_dot_scores_values',
    'test_entropy_falls_for_raw_scores_only',
    'test_score_gradient_shrinks_when_saturated',
]
MISTAKE = 'Uses K.T on a 3-D tensor, which reverses all three dimensions instead of swapping the last two.'
MISTAKE_ID = 'transpose-all-dims'
CODE = '''
def dot_scores(Q, K):
    return Q @ K.T
'''
