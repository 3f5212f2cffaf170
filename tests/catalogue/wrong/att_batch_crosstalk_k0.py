"""Wrong single_head_attention submission: att batch crosstalk k0."""

ASSIGNMENT = 'single_head_attention'
CAUGHT_BY = [
    'test_attention_values',
    'test_attention_masks',
    'test_attention_batch_independence',
]
MISTAKE = 'Uses K[0] for every batch item, mixing batch items.'
MISTAKE_ID = 'batch-crosstalk'
CODE = '''
def attention(Q, K, V, mask=None):
    scores = Q @ K[0].transpose(-2, -1) / math.sqrt(K.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
'''
