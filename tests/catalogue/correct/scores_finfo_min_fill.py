"""Correct attention_scores submission in its own style: scores finfo min fill."""

ASSIGNMENT = 'attention_scores'
STYLE = ('apply_mask fills with torch.finfo(dtype).min (as Hugging Face models do) and attention_weights masks '
         'on its own with -1e9 (The Annotated Transformer) before F.softmax')
ON_REFERENCE = True  # CODE is appended to the reference solution: only these definitions change
CODE = '''
def apply_mask(scores, mask):
    return scores.masked_fill(~mask.bool(), torch.finfo(scores.dtype).min)


def attention_weights(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(mask == 0, -1e9)
    return F.softmax(scores, dim=-1)
'''
