"""Wrong attention_scores submission: Fills forbidden scores with -30, which wins over allowed scores far below zero."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_apply_mask_values',
]
MISTAKE = 'Fills forbidden scores with -30, which wins over allowed scores far below zero.'
MISTAKE_ID = 'mask-small-fill'
CODE = '''def apply_mask(scores, mask):
    return scores.masked_fill(mask == 0, -30.0)
'''
