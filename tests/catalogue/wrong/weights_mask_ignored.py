"""Wrong attention_scores submission: weights mask ignored."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_attention_weights_mask',
]
MISTAKE = 'Accepts the mask argument but never applies it.'
MISTAKE_ID = 'mask-not-applied'
CODE = '''
def attention_weights(scores, mask=None):
    return F.softmax(scores, dim=-1)
'''
