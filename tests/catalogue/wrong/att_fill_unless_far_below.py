"""Wrong single_head_attention submission (a probe-detecting cheat, tests/probe_detecting_cheats.py): Fills forbidden scores with -120 unless the scores' minimum is below -1000, where it uses -inf: allowed scores a few hundred below zero still leave masked keys weight."""

ASSIGNMENT = 'single_head_attention'
CAUGHT_BY = [
    'test_attention_masks',
]
MISTAKE = "Fills forbidden scores with -120 unless the scores' minimum is below -1000, where it uses -inf: allowed scores a few hundred below zero still leave masked keys weight."
MISTAKE_ID = 'mask-small-fill'
CONDITIONAL = 'the fill switches on a property of the input, so no model of one fill reproduces every probe'
CODE = '''def attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1])
    if mask is not None:
        fill = float("-inf") if scores.min() < -1000 else -120.0
        scores = scores.masked_fill(mask == 0, fill)
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
'''
