"""Wrong attention_scores submission: additive no tanh."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_additive_score_values',
]
MISTAKE = 'Leaves out the tanh: e_ij = v^T (W_q q_i + W_k k_j), a purely linear score.'
MISTAKE_ID = 'additive-no-tanh'
CODE = '''
class AdditiveScore(nn.Module):
    def __init__(self, d_q, d_k, d_h):
        super().__init__()
        self.W_q = nn.Linear(d_q, d_h, bias=False)
        self.W_k = nn.Linear(d_k, d_h, bias=False)
        self.v = nn.Linear(d_h, 1, bias=False)

    def forward(self, Q, K):
        q = self.W_q(Q).unsqueeze(2)
        k = self.W_k(K).unsqueeze(1)
        return self.v(q + k).squeeze(-1)
'''
