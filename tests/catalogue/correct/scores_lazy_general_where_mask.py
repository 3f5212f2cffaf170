"""Correct attention_scores submission in its own style: scores lazy general where mask."""

ASSIGNMENT = 'attention_scores'
STYLE = 'Luong general score with nn.LazyLinear; masking by adding torch.where(mask, 0, -inf)'
ON_REFERENCE = True  # CODE is appended to the reference solution: only these definitions change
CODE = '''class GeneralScore(nn.Module):
    def __init__(self, d_q, d_k):
        super().__init__()
        self.W = nn.LazyLinear(d_q, bias=False)

    def forward(self, Q, K):
        return torch.einsum("bqd,bkd->bqk", Q, self.W(K))


def apply_mask(scores, mask):
    return scores + torch.where(mask.bool(), 0.0, float("-inf"))
'''
