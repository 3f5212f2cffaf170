"""Wrong single_head_attention submission: Remembers the first mask seen for each shape and reuses that pattern for later masks of the same shape."""

ASSIGNMENT = 'single_head_attention'
CAUGHT_BY = [
    'test_attention_masks',
]
MISTAKE = 'Remembers the first mask seen for each shape and reuses that pattern for later masks of the same shape.'
MISTAKE_ID = 'mask-cached'
CODE = '''_patterns = {}


def attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1])
    if mask is not None:
        mask = _patterns.setdefault(tuple(mask.shape), mask.bool())
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
'''
