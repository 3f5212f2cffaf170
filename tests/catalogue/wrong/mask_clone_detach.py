"""Wrong attention_scores submission: mask clone detach."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_apply_mask_broadcast_and_inputs',
]
MISTAKE = 'Copies the scores with clone().detach() before filling them, which cuts the gradient to the scores.'
MISTAKE_ID = 'graph-cut'
CODE = '''
def apply_mask(scores, mask):
    masked = scores.clone().detach()
    masked[(mask == 0).expand_as(masked)] = float("-inf")
    return masked
'''
