"""Wrong attention_scores submission: mask result not assigned."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_apply_mask_values',
    'test_apply_mask_broadcast_and_inputs',
]
MISTAKE = 'Calls masked_fill but throws its result away and returns the unmasked scores.'
MISTAKE_ID = 'mask-not-applied'
CODE = '''
def apply_mask(scores, mask):
    scores.masked_fill(mask == 0, float("-inf"))
    return scores
'''
