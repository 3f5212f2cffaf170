"""Wrong attention_scores submission: mask multiplied."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_apply_mask_values',
    'test_apply_mask_broadcast_and_inputs',
]
MISTAKE = 'Multiplies the scores by the mask, so forbidden keys get score 0 and still receive weight.'
MISTAKE_ID = 'mask-zero-fill'
CODE = '''
def apply_mask(scores, mask):
    return scores * mask
'''
