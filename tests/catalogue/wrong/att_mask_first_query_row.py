"""Wrong single_head_attention submission: Keeps only the first query row of a 3-D mask, as if every mask were a (B, 1, T_k) padding mask."""

ASSIGNMENT = 'single_head_attention'
CAUGHT_BY = [
    'test_attention_masks',
]
MISTAKE = 'Keeps only the first query row of a 3-D mask, as if every mask were a (B, 1, T_k) padding mask.'
MISTAKE_ID = 'mask-first-row'
CODE = '''def attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1])
    if mask is not None:
        if mask.dim() == 3:
            mask = mask[:, :1, :]
        scores = scores.masked_fill(mask == 0, float("-inf"))
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
'''
