"""Wrong attention_scores submission: weights mask after softmax renormalised."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_attention_weights_mask',
]
MISTAKE = (
    'Applies softmax to the unmasked scores, zeroes forbidden weights and renormalises; a large score on a '
    'masked key underflows every allowed weight to 0 (0/0 = NaN).'
)
KNOWN_GAP = (
    'test_attention_weights_mask puts only 30.0 on the forbidden keys; exp(-30) does not underflow in '
    'float32, so softmax-then-zero-then-renormalise reproduces the reference to ~1e-7. The grading facts '
    "ask for 'a huge score on a masked key': a score of about 1000 (exp underflows below about -104) would "
    'turn this into NaN.'
)
CODE = '''
def attention_weights(scores, mask=None):
    weights = F.softmax(scores, dim=-1)
    if mask is not None:
        weights = weights * mask
        weights = weights / weights.sum(dim=-1, keepdim=True)
    return weights
'''
