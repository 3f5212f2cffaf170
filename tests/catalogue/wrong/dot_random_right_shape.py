"""Wrong attention_scores submission: Returns random numbers of the right shape (B, T_q, T_k)."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_dot_scores_values',
    'test_dot_scores_edge_shapes',
    'test_dot_scores_gradients',
]
MISTAKE = 'Returns random numbers of the right shape (B, T_q, T_k).'
MISTAKE_ID = 'random-result'
CODE = '''def dot_scores(Q, K):
    return torch.randn(Q.shape[0], Q.shape[1], K.shape[1])
'''
