"""Wrong attention_scores submission: weights softmax no dim."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_attention_weights_softmax',
    'test_attention_weights_mask',
    'test_attention_weights_large_scores',
]
MISTAKE = 'Calls F.softmax without dim, which picks dim 0 (the batch) for 3-D input.'
MISTAKE_ID = 'softmax-no-dim'
CODE = '''
def attention_weights(scores, mask=None):
    if mask is not None:
        scores = apply_mask(scores, mask)
    return F.softmax(scores)
'''
