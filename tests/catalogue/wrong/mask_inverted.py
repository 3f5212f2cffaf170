"""Wrong attention_scores submission: mask inverted."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_apply_mask_values',
    'test_apply_mask_broadcast_and_inputs',
]
MISTAKE = (
    "Inverts the mask: fills where mask == 1 (PyTorch's nn.MultiheadAttention polarity) instead of mask == "
    '0.'
)
MISTAKE_ID = 'mask-inverted'
CODE = '''
def apply_mask(scores, mask):
    return scores.masked_fill(mask == 1, float("-inf"))
'''
