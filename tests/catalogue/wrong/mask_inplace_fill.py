"""Wrong attention_scores submission: mask inplace fill."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_apply_mask_broadcast_and_inputs',
]
MISTAKE = "Uses the in-place masked_fill_, which overwrites the caller's scores."
MISTAKE_ID = 'inputs-modified'
CODE = '''
def apply_mask(scores, mask):
    return scores.masked_fill_(mask == 0, float("-inf"))
'''
