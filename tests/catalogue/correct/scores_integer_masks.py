"""Correct attention_scores submission in its own style: masks built as 0/1 integers."""

ASSIGNMENT = 'attention_scores'
STYLE = ('causal_mask and padding_mask return 0/1 integer masks (int64 and int32, as the handout allows), and '
         'apply_mask reads any 0/1 dtype through torch.where')
ON_REFERENCE = True  # CODE is appended to the reference solution: only these definitions change
CODE = '''
def causal_mask(T):
    return torch.tril(torch.ones(T, T, dtype=torch.long))


def padding_mask(lengths, T_k):
    return (torch.arange(T_k)[None, None, :] < lengths[:, None, None]).int()


def apply_mask(scores, mask):
    return torch.where(mask.to(torch.int32) == 1, scores, torch.full_like(scores, float("-inf")))
'''
