"""Wrong attention_scores submission: dot k at q."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_dot_scores_edge_shapes',
    'test_dot_scores_values',
]
MISTAKE = 'Computes K @ Q^T, so rows are keys and columns are queries: shape (B, T_k, T_q).'
MISTAKE_ID = 'k-at-q'
CODE = '''
def dot_scores(Q, K):
    return K @ Q.transpose(-2, -1)
'''
