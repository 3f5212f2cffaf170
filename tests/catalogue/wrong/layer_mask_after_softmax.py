"""Wrong single_head_attention submission: layer mask after softmax."""

ASSIGNMENT = 'single_head_attention'
CAUGHT_BY = [
    'test_layer_masks',
]
MISTAKE = 'Zeroes future weights after the softmax without renormalising.'
MISTAKE_ID = 'mask-after-softmax'
CODE = '''
class SingleHeadAttention(nn.Module):
    def __init__(self, d_model, d_k):
        super().__init__()
        self.W_Q = nn.Linear(d_model, d_k, bias=False)
        self.W_K = nn.Linear(d_model, d_k, bias=False)
        self.W_V = nn.Linear(d_model, d_k, bias=False)
        self.d_k = d_k

    def forward(self, x_q, x_kv, mask=None):
        Q, K, V = self.W_Q(x_q), self.W_K(x_kv), self.W_V(x_kv)
        weights = F.softmax(Q @ K.transpose(-2, -1) / math.sqrt(self.d_k), dim=-1)
        if mask is not None:
            weights = weights * mask
        return weights @ V, weights
'''
