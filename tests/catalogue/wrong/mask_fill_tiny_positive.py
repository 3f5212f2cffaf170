"""Wrong attention_scores submission: mask fill tiny positive."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_apply_mask_values',
    'test_apply_mask_broadcast_and_inputs',
]
MISTAKE = "Fills forbidden scores with 1e-9 ('a tiny number') instead of -inf."
MISTAKE_ID = 'mask-zero-fill'
CODE = '''
def apply_mask(scores, mask):
    return scores.masked_fill(mask == 0, 1e-9)
'''
