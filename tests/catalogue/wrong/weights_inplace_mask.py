"""Wrong attention_scores submission: weights inplace mask."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_attention_weights_mask',
]
MISTAKE = (
    "Masks inside attention_weights with the in-place masked_fill_ (d2l's in-place _sequence_mask style), "
    "overwriting the caller's scores with -inf."
)
KNOWN_GAP = (
    "Only apply_mask (test_apply_mask_broadcast_and_inputs) and single_head_attention's attention "
    "(test_attention_leaves_inputs_alone) compare inputs with clones; no attention_weights test passes "
    "check_inputs=True, so an attention_weights that masks the caller's scores in place earns full marks."
)
CODE = '''
def attention_weights(scores, mask=None):
    if mask is not None:
        scores.masked_fill_(mask == 0, float("-inf"))
    return F.softmax(scores, dim=-1)
'''
