"""Wrong attention_scores submission: dot k at q."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_dot_scores_shape',
    'test_dot_scores_values',
    'test_entropy_falls_for_raw_scores_only',
    'test_score_gradient_shrinks_when_saturated',
]
MISTAKE = 'Computes K @ Q^T, so rows are keys and columns are queries: shape (B, T_k, T_q).'
MISTAKE_ID = 'k-at-q'
CODE = '''
def dot_scores(Q, K):
    return K @ Q.transpose(-2, -1)
'''
