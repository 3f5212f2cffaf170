"""Wrong attention_scores submission: general w transposed."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_general_score_values',
    'test_general_score_gradients',
]
MISTAKE = 'Uses W^T instead of W: multiplies the keys by self.W.weight directly (K @ W computes W^T k).'
MISTAKE_ID = 'w-transposed'
CODE = '''
class GeneralScore(nn.Module):
    def __init__(self, d_q, d_k):
        super().__init__()
        self.W = nn.Linear(d_k, d_q, bias=False)

    def forward(self, Q, K):
        return Q @ (K @ self.W.weight).transpose(-2, -1)
'''
