"""Wrong attention_scores submission: dot scaled too early."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_dot_scores_values',
]
MISTAKE = 'Divides the plain dot-product score by sqrt(d) although dot_scores must be unscaled.'
MISTAKE_ID = 'unwanted-scale'
CODE = '''
def dot_scores(Q, K):
    return Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1])
'''
