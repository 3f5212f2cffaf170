"""Wrong attention_scores submission: mask clone detach."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_apply_mask_values',
]
MISTAKE = 'Copies the scores with clone().detach() before filling them, which cuts the gradient to the scores.'
KNOWN_GAP = (
    'apply_mask has no gradient probe and attention_weights is only differentiated without a mask '
    '(test_score_gradient_shrinks_when_saturated), so clone().detach() inside apply_mask passes every '
    'test.'
)
CODE = '''
def apply_mask(scores, mask):
    masked = scores.clone().detach()
    masked[(mask == 0).expand_as(masked)] = float("-inf")
    return masked
'''
