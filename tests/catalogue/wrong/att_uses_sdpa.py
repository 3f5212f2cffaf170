"""Wrong single_head_attention submission: att uses sdpa."""

ASSIGNMENT = 'single_head_attention'
CAUGHT_BY = [
    'test_attention_returns_output_and_weights',
    'test_attention_values',
    'test_attention_masks',
    'test_attention_gradients',
    'test_attention_batch_independence',
    'test_attention_leaves_inputs_alone',
    'test_layer_parameters',
    'test_layer_self_attention',
    'test_layer_cross_attention',
    'test_layer_causal_mask',
    'test_layer_gradients',
]
MISTAKE = 'Calls F.scaled_dot_product_attention, which the assignment forbids.'
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
