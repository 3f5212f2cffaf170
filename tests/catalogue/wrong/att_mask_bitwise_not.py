"""Wrong single_head_attention submission: att mask bitwise not."""

ASSIGNMENT = 'single_head_attention'
CAUGHT_BY = [
    'test_attention_masks',
    'test_attention_leaves_inputs_alone',
]
MISTAKE = 'Negates the mask with ~mask, which breaks on 0/1 int and float masks.'
MISTAKE_ID = 'mask-bitwise-not'
CODE = '''
def attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
'''
