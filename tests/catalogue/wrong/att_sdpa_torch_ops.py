"""Wrong single_head_attention submission: Calls the math kernel torch.ops.aten._scaled_dot_product_attention_math, which returns (output, weights)."""

ASSIGNMENT = 'single_head_attention'
CAUGHT_BY = [
    'test_attention_mixes_values',
    'test_attention_values',
    'test_attention_masks',
    'test_attention_large_scores',
    'test_attention_gradients',
    'test_attention_batch_independence',
    'test_attention_leaves_inputs_alone',
]
MISTAKE = 'Calls the math kernel torch.ops.aten._scaled_dot_product_attention_math, which returns (output, weights).'
MISTAKE_ID = 'forbidden-api'
CODE = '''def attention(Q, K, V, mask=None):
    bias = None
    if mask is not None:
        shape = torch.broadcast_shapes(mask.shape, (Q.shape[0], Q.shape[1], K.shape[1]))
        bias = torch.zeros(shape).masked_fill(mask == 0, float("-inf"))
    output, weights = torch.ops.aten._scaled_dot_product_attention_math(Q, K, V, attn_mask=bias)
    return output, weights
'''
