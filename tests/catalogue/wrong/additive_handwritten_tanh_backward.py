"""Wrong attention_scores submission: a hand-written tanh whose backward uses 1 - t instead of 1 - t^2."""

ASSIGNMENT = 'attention_scores'
CAUGHT_BY = [
    'test_additive_score_gradients',
]
MISTAKE = ("Writes its own tanh as a torch.autograd.Function whose backward multiplies by 1 - tanh instead of "
           "1 - tanh^2: the scores are right, every gradient is present, but all of them are wrong.")
MISTAKE_ID = 'backward-differs'
CODE = '''
class _Tanh(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        t = torch.tanh(x)
        ctx.save_for_backward(t)
        return t

    @staticmethod
    def backward(ctx, grad):
        (t,) = ctx.saved_tensors
        return grad * (1 - t)


class AdditiveScore(nn.Module):
    def __init__(self, d_q, d_k, d_h):
        super().__init__()
        self.W_q = nn.Linear(d_q, d_h, bias=False)
        self.W_k = nn.Linear(d_k, d_h, bias=False)
        self.v = nn.Linear(d_h, 1, bias=False)

    def forward(self, Q, K):
        return self.v(_Tanh.apply(self.W_q(Q).unsqueeze(2) + self.W_k(K).unsqueeze(1))).squeeze(-1)
'''
