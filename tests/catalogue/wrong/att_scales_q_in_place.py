"""Wrong single_head_attention submission: att scales q in place."""

ASSIGNMENT = 'single_head_attention'
CAUGHT_BY = [
    'test_attention_gradients',
    'test_attention_leaves_inputs_alone',
]
MISTAKE = "Scales the queries in place (Q /= sqrt(d_k)), modifying the caller's tensor."
MISTAKE_ID = 'inputs-modified'
CODE = '''
def attention(Q, K, V, mask=None):
    Q /= math.sqrt(K.shape[-1])
    scores = Q @ K.transpose(-2, -1)
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
'''
