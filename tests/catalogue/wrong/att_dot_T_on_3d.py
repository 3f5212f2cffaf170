"""Wrong single_head_attention submission: att dot T on 3d."""

ASSIGNMENT = 'single_head_attention'
CAUGHT_BY = [
    'test_attention_mixes_values',
    'test_attention_values',
    'test_attention_masks',
    'test_attention_gradients',
    'test_attention_batch_independence',
    'test_attention_leaves_inputs_alone',
]
MISTAKE = 'Uses K.T on the 3-D key tensor, which reverses all dimensions.'
MISTAKE_ID = 'transpose-all-dims'
CODE = '''
def attention(Q, K, V, mask=None):
    scores = Q @ K.T / math.sqrt(K.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
'''
