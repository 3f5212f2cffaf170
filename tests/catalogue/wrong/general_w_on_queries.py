"""Wrong attention_scores submission: general w on queries."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_general_score_values',
    'test_general_score_gradients',
]
MISTAKE = 'Applies self.W to the queries instead of the keys.'
MISTAKE_ID = 'w-transposed'
CODE = '''
class GeneralScore(nn.Module):
    def __init__(self, d_q, d_k):
        super().__init__()
        self.W = nn.Linear(d_k, d_q, bias=False)

    def forward(self, Q, K):
        return self.W(Q) @ K.transpose(-2, -1)
'''
