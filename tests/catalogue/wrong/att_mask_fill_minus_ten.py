"""Wrong single_head_attention submission: att mask fill minus ten."""

ASSIGNMENT = 'single_head_attention'
CAUGHT_BY = [
    'test_attention_masks',
]
MISTAKE = 'Fills forbidden scores with -10, which leaves them a small but visible weight.'
CODE = '''
def attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(mask == 0, -10.0)
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
'''
