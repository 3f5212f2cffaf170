"""Wrong attention_scores submission: scaled hardcoded sqrt64."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_scaled_dot_scores_values',
]
MISTAKE = "Hard-codes the Transformer's d_k = 64 and always divides by 8."
MISTAKE_ID = 'scale-hardcoded'
CODE = '''
def scaled_dot_scores(Q, K):
    return Q @ K.transpose(-2, -1) / math.sqrt(64)
'''
