"""Wrong attention_scores submission: additive axes swapped."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_additive_score_values',
    'test_additive_score_gradients',
]
MISTAKE = 'Unsqueezes queries at dim 1 and keys at dim 2, so the scores come out as (B, T_k, T_q).'
MISTAKE_ID = 'additive-axes-swapped'
CODE = '''
class AdditiveScore(nn.Module):
    def __init__(self, d_q, d_k, d_h):
        super().__init__()
        self.W_q = nn.Linear(d_q, d_h, bias=False)
        self.W_k = nn.Linear(d_k, d_h, bias=False)
        self.v = nn.Linear(d_h, 1, bias=False)

    def forward(self, Q, K):
        q = self.W_q(Q).unsqueeze(1)
        k = self.W_k(K).unsqueeze(2)
        return self.v(torch.tanh(q + k)).squeeze(-1)
'''
