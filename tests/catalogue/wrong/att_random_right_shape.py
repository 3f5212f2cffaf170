"""Wrong single_head_attention submission: Returns random weights (softmaxed, so rows sum to 1) and their mix of the values."""

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
MISTAKE = 'Returns random weights (softmaxed, so rows sum to 1) and their mix of the values.'
MISTAKE_ID = 'random-result'
CODE = '''def attention(Q, K, V, mask=None):
    weights = F.softmax(torch.randn(Q.shape[0], Q.shape[1], K.shape[1]), dim=-1)
    return weights @ V, weights
'''
