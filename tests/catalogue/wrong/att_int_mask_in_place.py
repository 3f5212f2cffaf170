"""Wrong single_head_attention submission: attention turns an integer mask into a fill in place."""

ASSIGNMENT = 'single_head_attention'
CAUGHT_BY = [
    'test_attention_masks',
]
MISTAKE = ("Rewrites a 0/1 integer mask in place into an additive fill (mask.sub_(1).mul_(10**9)) before adding it: "
           "the weights are right, but the caller's mask is changed.")
MISTAKE_ID = 'inputs-modified'
CODE = '''
def attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1])
    if mask is not None and mask.dtype in (torch.int32, torch.int64):
        scores = scores + mask.sub_(1).mul_(10 ** 9)
    elif mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
'''
