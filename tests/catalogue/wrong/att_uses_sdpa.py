"""Wrong single_head_attention submission: att uses sdpa."""

ASSIGNMENT = 'single_head_attention'
CAUGHT_BY = [
    'test_attention_mixes_values',
    'test_attention_values',
    'test_attention_masks',
    'test_attention_gradients',
    'test_attention_batch_independence',
    'test_attention_leaves_inputs_alone',
]
MISTAKE = 'Calls F.scaled_dot_product_attention for the output, which the assignment forbids (the layer, the reference one, is unaffected).'
MISTAKE_ID = 'forbidden-api'
CODE = '''
def attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
        mask = mask.bool()
    weights = F.softmax(scores, dim=-1)
    return F.scaled_dot_product_attention(Q, K, V, attn_mask=mask), weights
'''
