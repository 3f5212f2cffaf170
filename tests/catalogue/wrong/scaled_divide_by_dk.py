"""Wrong attention_scores submission: scaled divide by dk."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_scaled_dot_scores_values',
]
MISTAKE = 'Divides by d_k instead of sqrt(d_k).'
MISTAKE_ID = 'scale-by-dk'
CODE = '''
def scaled_dot_scores(Q, K):
    return Q @ K.transpose(-2, -1) / K.shape[-1]
'''
