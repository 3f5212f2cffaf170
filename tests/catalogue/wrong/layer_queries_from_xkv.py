"""Wrong single_head_attention submission: layer queries from xkv."""

ASSIGNMENT = 'single_head_attention'
CAUGHT_BY = [
    'test_layer_cross_attention',
]
MISTAKE = 'Swaps the roles: queries from x_kv, keys and values from x_q.'
MISTAKE_ID = 'queries-from-xkv'
CODE = '''
class SingleHeadAttention(nn.Module):
    def __init__(self, d_model, d_k):
        super().__init__()
        self.W_Q = nn.Linear(d_model, d_k, bias=False)
        self.W_K = nn.Linear(d_model, d_k, bias=False)
        self.W_V = nn.Linear(d_model, d_k, bias=False)
        self.d_k = d_k

    def forward(self, x_q, x_kv, mask=None):
        Q, K, V = self.W_Q(x_kv), self.W_K(x_q), self.W_V(x_q)
        scores = Q @ K.transpose(-2, -1) / math.sqrt(self.d_k)
        if mask is not None:
            scores = scores.masked_fill(mask == 0, float("-inf"))
        weights = F.softmax(scores, dim=-1)
        return weights @ V, weights
'''
