"""Wrong single_head_attention submission (a probe-detecting cheat, tests/probe_detecting_cheats.py): Uses -inf for bool masks only and fills with -120 for 0/1 int or float masks, which leak where the allowed scores are far below zero."""

ASSIGNMENT = 'single_head_attention'
CAUGHT_BY = [
    'test_attention_masks',
]
MISTAKE = 'Uses -inf for bool masks only and fills with -120 for 0/1 int or float masks, which leak where the allowed scores are far below zero.'
MISTAKE_ID = 'mask-small-fill'
CONDITIONAL = 'the fill switches on a property of the input, so no model of one fill reproduces every probe'
CODE = '''def attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1])
    if mask is not None:
        fill = float("-inf") if mask.dtype == torch.bool else -120.0
        scores = scores.masked_fill(mask == 0, fill)
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
'''
