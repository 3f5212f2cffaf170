"""Wrong attention_scores submission: weights mask bitwise not."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_attention_weights_mask',
]
MISTAKE = (
    "Masks inside attention_weights with masked_fill(~mask, -inf), which only works for bool masks although "
    "the docstring allows 0/1 int and float masks (~ gives -2/-1 on ints and raises on floats)."
)
KNOWN_GAP = (
    "test_attention_weights_mask passes only a bool mask (the public check passes a 0/1 int mask but is not "
    "graded); 0/1 int and float masks are exercised only for apply_mask, so an attention_weights that does "
    "its own bool-only masking instead of calling apply_mask earns full marks."
)
CODE = '''
def attention_weights(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return F.softmax(scores, dim=-1)
'''
