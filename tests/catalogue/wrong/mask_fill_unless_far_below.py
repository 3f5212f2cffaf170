"""Wrong attention_scores submission (a probe-detecting cheat, tests/probe_detecting_cheats.py): Fills forbidden scores with -120 unless the scores' minimum is below -1000 (a probe, it guesses), where it uses -inf: rows far below zero in a tensor whose minimum is not still give masked keys weight."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_apply_mask_values',
]
MISTAKE = "Fills forbidden scores with -120 unless the scores' minimum is below -1000 (a probe, it guesses), where it uses -inf: rows far below zero in a tensor whose minimum is not still give masked keys weight."
MISTAKE_ID = 'mask-small-fill'
CONDITIONAL = 'the fill switches on a property of the input, so no model of one fill reproduces every probe'
CODE = '''def apply_mask(scores, mask):
    fill = float("-inf") if scores.min() < -1000 else -120.0
    return scores.masked_fill(mask == 0, fill)
'''
