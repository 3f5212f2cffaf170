"""Wrong single_head_attention submission: the keys are projected from a detached x_kv."""

ASSIGNMENT = 'single_head_attention'
CAUGHT_BY = [
    'test_layer_gradients',
]
MISTAKE = ("Projects the keys from x_kv.detach(): x_kv still gets a gradient through the values, but the part "
           "that flows through the keys is lost.")
MISTAKE_ID = 'backward-differs'
CODE = '''
class SingleHeadAttention(nn.Module):
    def __init__(self, d_model, d_k):
        super().__init__()
        self.W_Q = nn.Linear(d_model, d_k, bias=False)
        self.W_K = nn.Linear(d_model, d_k, bias=False)
        self.W_V = nn.Linear(d_model, d_k, bias=False)
        self.d_k = d_k

    def forward(self, x_q, x_kv, mask=None):
        Q, K, V = self.W_Q(x_q), self.W_K(x_kv.detach()), self.W_V(x_kv)
        scores = Q @ K.transpose(-2, -1) / math.sqrt(self.d_k)
        if mask is not None:
            scores = scores.masked_fill(mask == 0, float("-inf"))
        weights = F.softmax(scores, dim=-1)
        return weights @ V, weights
'''
