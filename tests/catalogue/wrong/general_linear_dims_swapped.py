"""Wrong attention_scores submission: general linear dims swapped."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_general_score_parameters',
    'test_general_score_values',
    'test_general_score_gradients',
]
MISTAKE = (
    "Builds nn.Linear(d_q, d_k) and maps the queries, so the weight has shape (d_k, d_q) instead of W's "
    '(d_q, d_k).'
)
CODE = '''
class GeneralScore(nn.Module):
    def __init__(self, d_q, d_k):
        super().__init__()
        self.W = nn.Linear(d_q, d_k, bias=False)

    def forward(self, Q, K):
        return self.W(Q) @ K.transpose(-2, -1)
'''
