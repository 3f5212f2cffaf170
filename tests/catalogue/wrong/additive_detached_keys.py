"""Wrong attention_scores submission: additive detached keys."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_additive_score_gradients',
]
MISTAKE = "Detaches the projected keys ('the encoder memory is fixed'), so no gradient reaches K or W_k."
MISTAKE_ID = 'graph-cut'
CODE = '''
class AdditiveScore(nn.Module):
    def __init__(self, d_q, d_k, d_h):
        super().__init__()
        self.W_q = nn.Linear(d_q, d_h, bias=False)
        self.W_k = nn.Linear(d_k, d_h, bias=False)
        self.v = nn.Linear(d_h, 1, bias=False)

    def forward(self, Q, K):
        q = self.W_q(Q).unsqueeze(2)
        k = self.W_k(K).detach().unsqueeze(1)
        return self.v(torch.tanh(q + k)).squeeze(-1)
'''
