"""Wrong attention_scores submission: mask bitwise not."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_apply_mask_values',
]
MISTAKE = (
    'Negates the mask with ~mask, which only works for bool masks (on 0/1 ints it gives -2/-1, on floats it '
    'raises).'
)
MISTAKE_ID = 'mask-bitwise-not'
CODE = '''
def apply_mask(scores, mask):
    return scores.masked_fill(~mask, float("-inf"))
'''
