"""Wrong single_head_attention submission: Fills forbidden scores with -30: when every allowed score is below -30 the masked key takes the weight."""

ASSIGNMENT = 'single_head_attention'
CAUGHT_BY = [
    'test_attention_masks',
]
MISTAKE = 'Fills forbidden scores with -30: when every allowed score is below -30 the masked key takes the weight.'
MISTAKE_ID = 'mask-small-fill'
CODE = '''def attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(mask == 0, -30.0)
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
'''
