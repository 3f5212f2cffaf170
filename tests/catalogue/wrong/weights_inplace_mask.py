"""Wrong attention_scores submission: weights inplace mask."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_attention_weights_mask',
]
MISTAKE = (
    "Masks inside attention_weights with the in-place masked_fill_ (d2l's in-place _sequence_mask style), "
    "overwriting the caller's scores with -inf."
)
MISTAKE_ID = 'inputs-modified'
CODE = '''
def attention_weights(scores, mask=None):
    if mask is not None:
        scores.masked_fill_(mask == 0, float("-inf"))
    return F.softmax(scores, dim=-1)
'''
