"""Wrong single_head_attention submission: att manual exp softmax."""

ASSIGNMENT = 'single_head_attention'
CAUGHT_BY = [
    'test_attention_large_scores',
]
MISTAKE = 'Writes softmax as exp(s) / sum exp(s) without subtracting the row maximum (overflows for large scores).'
MISTAKE_ID = 'softmax-unstable'
CODE = '''
def attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    exps = scores.exp()
    weights = exps / exps.sum(dim=-1, keepdim=True)
    return weights @ V, weights
'''
