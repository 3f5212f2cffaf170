"""Wrong attention_scores submission: weights manual exp."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_attention_weights_large_scores',
]
MISTAKE = (
    'Writes softmax as exp(s) / sum exp(s) without subtracting the row maximum, which overflows for large '
    'scores.'
)
MISTAKE_ID = 'softmax-unstable'
CODE = '''
def attention_weights(scores, mask=None):
    if mask is not None:
        scores = apply_mask(scores, mask)
    exps = torch.exp(scores)
    return exps / exps.sum(dim=-1, keepdim=True)
'''
