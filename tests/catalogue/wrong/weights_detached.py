"""Wrong attention_scores submission: weights detached."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_attention_weights_gradients',
]
MISTAKE = 'Detaches the scores before the softmax, so no gradient flows back to them.'
MISTAKE_ID = 'graph-cut'
CODE = '''
def attention_weights(scores, mask=None):
    scores = scores.detach()
    if mask is not None:
        scores = apply_mask(scores, mask)
    return F.softmax(scores, dim=-1)
'''
