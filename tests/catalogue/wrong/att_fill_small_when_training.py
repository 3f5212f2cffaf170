"""Wrong single_head_attention submission (a probe-detecting cheat, tests/probe_detecting_cheats.py): Fills forbidden scores with -1000 when the inputs require gradients (training) and with -inf otherwise: in training, allowed scores thousands below zero leave masked keys weight."""

ASSIGNMENT = 'single_head_attention'
CAUGHT_BY = [
    'test_attention_masks',
]
MISTAKE = 'Fills forbidden scores with -1000 when the inputs require gradients (training) and with -inf otherwise: in training, allowed scores thousands below zero leave masked keys weight.'
MISTAKE_ID = 'mask-small-fill'
CONDITIONAL = 'the fill switches on a property of the input, so no model of one fill reproduces every probe'
CODE = '''def attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1])
    if mask is not None:
        fill = -1000.0 if scores.requires_grad else float("-inf")
        scores = scores.masked_fill(mask == 0, fill)
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
'''
