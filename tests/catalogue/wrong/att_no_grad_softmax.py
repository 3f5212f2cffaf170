"""Wrong single_head_attention submission: att no grad softmax."""

ASSIGNMENT = 'single_head_attention'
CAUGHT_BY = [
    'test_attention_gradients',
]
MISTAKE = 'Computes the weights under torch.no_grad(), so no gradient reaches Q or K.'
MISTAKE_ID = 'graph-cut'
CODE = '''
def attention(Q, K, V, mask=None):
    with torch.no_grad():
        scores = Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1])
        if mask is not None:
            scores = scores.masked_fill(mask == 0, float("-inf"))
        weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
'''
