"""Wrong single_head_attention submission: Reaches the fused kernel through getattr on a name built from pieces, to dodge a source check."""

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
MISTAKE = 'Reaches the fused kernel through getattr on a name built from pieces, to dodge a source check.'
MISTAKE_ID = 'forbidden-api'
CODE = '''def attention(Q, K, V, mask=None):
    fused = getattr(F, "scaled_dot_" + "product_attention")
    scores = Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    weights = F.softmax(scores, dim=-1)
    bias = None if mask is None else torch.zeros_like(scores).masked_fill(mask == 0, float("-inf"))
    return fused(Q, K, V, attn_mask=bias), weights
'''
