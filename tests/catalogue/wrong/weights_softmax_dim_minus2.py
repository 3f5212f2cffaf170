"""Wrong attention_scores submission: weights softmax dim minus2."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_attention_weights_softmax',
    'test_attention_weights_mask',
]
MISTAKE = 'Normalises over dim -2 (the queries) instead of the keys.'
MISTAKE_ID = 'softmax-wrong-dim'
CODE = '''
def attention_weights(scores, mask=None):
    if mask is not None:
        scores = apply_mask(scores, mask)
    return F.softmax(scores, dim=-2)
'''
