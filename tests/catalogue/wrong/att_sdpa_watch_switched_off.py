"""Wrong single_head_attention submission: the fused kernel behind a switched-off torch-function layer."""

ASSIGNMENT = 'single_head_attention'
CAUGHT_BY = [
    'test_file_leaves_the_kernel_watch_alone',
    'test_attention_mixes_values',
    'test_attention_values',
    'test_attention_masks',
    'test_attention_large_scores',
    'test_attention_gradients',
    'test_attention_batch_independence',
    'test_attention_leaves_inputs_alone',
]
MISTAKE = ('Calls F.scaled_dot_product_attention inside torch._C.DisableTorchFunction() to hide it from the '
           'grader: flagged by the source check and caught at run time.')
MISTAKE_ID = 'forbidden-api'
CODE = '''
def attention(Q, K, V, mask=None):
    bias = None
    if mask is not None:
        shape = torch.broadcast_shapes(mask.shape, (Q.shape[0], Q.shape[1], K.shape[1]))
        bias = torch.zeros(shape).masked_fill(mask == 0, float("-inf"))
    scores = Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1])
    weights = F.softmax(scores if bias is None else scores + bias, dim=-1)
    with torch._C.DisableTorchFunction():
        output = F.scaled_dot_product_attention(Q, K, V, attn_mask=bias)
    return output, weights
'''
