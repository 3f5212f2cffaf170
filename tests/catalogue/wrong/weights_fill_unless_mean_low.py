"""Wrong attention_scores submission (a probe-detecting cheat, tests/probe_detecting_cheats.py): Fills forbidden scores with -120 unless the mean score is below -20: rows far below zero among ordinary rows keep the mean near 0 and leak weight."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_attention_weights_mask',
]
MISTAKE = 'Fills forbidden scores with -120 unless the mean score is below -20: rows far below zero among ordinary rows keep the mean near 0 and leak weight.'
MISTAKE_ID = 'mask-small-fill'
CONDITIONAL = 'the fill switches on a property of the input, so no model of one fill reproduces every probe'
CODE = '''def attention_weights(scores, mask=None):
    if mask is not None:
        fill = float("-inf") if scores.mean() < -20 else -120.0
        scores = scores.masked_fill(mask == 0, fill)
    return F.softmax(scores, dim=-1)
'''
