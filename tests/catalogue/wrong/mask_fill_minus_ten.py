"""Wrong attention_scores submission: mask fill minus ten."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_apply_mask_values',
    'test_apply_mask_broadcast_and_inputs',
]
MISTAKE = 'Fills forbidden scores with -10, which still leaves them a visible weight after softmax.'
MISTAKE_ID = 'mask-small-fill'
CODE = '''
def apply_mask(scores, mask):
    return scores.masked_fill(mask == 0, -10.0)
'''
