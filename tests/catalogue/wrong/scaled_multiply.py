"""Wrong attention_scores submission: scaled multiply."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_scaled_dot_scores_values',
]
MISTAKE = 'Multiplies by sqrt(d_k) instead of dividing.'
MISTAKE_ID = 'scale-multiplied'
CODE = '''
def scaled_dot_scores(Q, K):
    return Q @ K.transpose(-2, -1) * math.sqrt(K.shape[-1])
'''
