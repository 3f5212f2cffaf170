"""Correct attention_scores submission in its own style: scores d2l fill and logsumexp."""

ASSIGNMENT = 'attention_scores'
STYLE = 'd2l-style masking (-1e6 written into a copy by index), a softmax written as exp(s - logsumexp(s)), and causal and padding masks as 0/1 float tensors built as in the lesson'
ON_REFERENCE = True  # CODE is appended to the reference solution: only these definitions change
CODE = '''def apply_mask(scores, mask):
    out = scores.clone()
    out[(mask == 0).expand(scores.shape)] = -1e6
    return out


def attention_weights(scores, mask=None):
    if mask is not None:
        scores = apply_mask(scores, mask)
    return torch.exp(scores - torch.logsumexp(scores, dim=-1, keepdim=True))


def causal_mask(T):
    mask = torch.ones(T, T)
    mask[torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)] = 0
    return mask


def padding_mask(lengths, T_k):
    mask = torch.ones(len(lengths), 1, T_k)
    for b, n in enumerate(lengths.tolist()):
        mask[b, :, n:] = 0
    return mask
'''
