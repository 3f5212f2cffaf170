"""Wrong attention_scores submission: weights mask bitwise not."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_attention_weights_mask',
]
MISTAKE = (
    "Masks inside attention_weights with masked_fill(~mask, -inf), which only works for bool masks although "
    "the docstring allows 0/1 int and float masks (~ gives -2/-1 on ints and raises on floats)."
)
MISTAKE_ID = 'mask-bitwise-not'
CODE = '''
def attention_weights(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return F.softmax(scores, dim=-1)
'''
