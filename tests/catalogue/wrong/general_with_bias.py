"""Wrong attention_scores submission: general with bias."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_general_score_parameters',
    'test_general_score_values',
]
MISTAKE = "Keeps nn.Linear's default bias=True, adding a q . b term to every score."
MISTAKE_ID = 'projection-bias'
CODE = '''
class GeneralScore(nn.Module):
    def __init__(self, d_q, d_k):
        super().__init__()
        self.W = nn.Linear(d_k, d_q)

    def forward(self, Q, K):
        return Q @ self.W(K).transpose(-2, -1)
'''
