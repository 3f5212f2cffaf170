"""Wrong single_head_attention submission: att manual exp softmax."""

ASSIGNMENT = 'single_head_attention'
CAUGHT_BY = [
    'test_attention_values',
]
MISTAKE = 'Writes softmax as exp(s) / sum exp(s) without subtracting the row maximum (overflows for large scores).'
KNOWN_GAP = (
    'No single_head_attention test feeds large scores (every input is randn, so scores stay within a few '
    'units); only attention_scores::test_attention_weights_large_scores probes [1000, 999, 0]. An unstable '
    'hand-written softmax in attention() therefore earns full marks.'
)
CODE = '''
def attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    exps = scores.exp()
    weights = exps / exps.sum(dim=-1, keepdim=True)
    return weights @ V, weights
'''
