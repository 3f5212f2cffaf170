"""Wrong attention_scores submission: scaled by sqrt tk."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_scaled_dot_scores_values',
]
MISTAKE = 'Divides by sqrt(T_k), the number of keys, instead of sqrt(d_k).'
MISTAKE_ID = 'scale-sqrt-tk'
CODE = '''
def scaled_dot_scores(Q, K):
    return Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-2])
'''
