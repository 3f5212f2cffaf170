"""Wrong attention_scores submission: additive with biases."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_additive_score_parameters',
    'test_additive_score_values',
]
MISTAKE = 'Keeps the default biases in W_q, W_k and v (as in the PyTorch seq2seq tutorial).'
MISTAKE_ID = 'projection-bias'
CODE = '''
class AdditiveScore(nn.Module):
    def __init__(self, d_q, d_k, d_h):
        super().__init__()
        self.W_q = nn.Linear(d_q, d_h)
        self.W_k = nn.Linear(d_k, d_h)
        self.v = nn.Linear(d_h, 1)

    def forward(self, Q, K):
        q = self.W_q(Q).unsqueeze(2)
        k = self.W_k(K).unsqueeze(1)
        return self.v(torch.tanh(q + k)).squeeze(-1)
'''
