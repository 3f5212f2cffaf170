"""Wrong attention_scores submission: attention_weights masks with its own -30 fill instead of apply_mask."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_attention_weights_mask',
]
MISTAKE = 'attention_weights masks with its own -30 fill instead of apply_mask.'
MISTAKE_ID = 'mask-small-fill'
CODE = '''def attention_weights(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(mask == 0, -30.0)
    return F.softmax(scores, dim=-1)
'''
