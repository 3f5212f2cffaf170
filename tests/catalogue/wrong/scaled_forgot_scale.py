"""Wrong attention_scores submission: scaled forgot scale."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_scaled_dot_scores_values',
    'test_entropy_falls_for_raw_scores_only',
    'test_score_gradient_shrinks_when_saturated',
]
MISTAKE = 'Forgets the 1/sqrt(d_k) factor and returns the raw dot products.'
CODE = '''
def scaled_dot_scores(Q, K):
    return Q @ K.transpose(-2, -1)
'''
