"""Wrong single_head_attention submission: att mask added."""

ASSIGNMENT = 'single_head_attention'
CAUGHT_BY = [
    'test_attention_masks',
]
MISTAKE = "Adds the mask to the scores as if it were SDPA's additive float mask (a 0/1 mask then masks nothing)."
MISTAKE_ID = 'mask-added'
CODE = '''
def attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1])
    if mask is not None:
        scores = scores + mask
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
'''
