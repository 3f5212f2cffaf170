"""Wrong attention_scores submission: Returns random numbers of the right shape, scaled."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_scaled_dot_scores_values',
    'test_scaled_dot_scores_edge_shapes',
    'test_scaled_dot_scores_gradients',
]
MISTAKE = 'Returns random numbers of the right shape, scaled.'
MISTAKE_ID = 'random-result'
CODE = '''def scaled_dot_scores(Q, K):
    return torch.randn(Q.shape[0], Q.shape[1], K.shape[1]) / math.sqrt(K.shape[-1])
'''
