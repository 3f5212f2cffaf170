"""Wrong single_head_attention submission: the layer scales the caller's x_q in place."""

ASSIGNMENT = 'single_head_attention'
CAUGHT_BY = [
    'test_layer_parameters',
    'test_layer_self_attention',
    'test_layer_cross_attention',
    'test_layer_masks',
]
MISTAKE = ("Folds the 1/sqrt(d_k) scale into x_q with x_q.mul_(...) before the projection: the values are right, but "
           "the caller's x_q is changed.")
MISTAKE_ID = 'inputs-modified'
CODE = '''
class SingleHeadAttention(nn.Module):
    def __init__(self, d_model, d_k):
        super().__init__()
        self.W_Q = nn.Linear(d_model, d_k, bias=False)
        self.W_K = nn.Linear(d_model, d_k, bias=False)
        self.W_V = nn.Linear(d_model, d_k, bias=False)
        self.d_k = d_k

    def forward(self, x_q, x_kv, mask=None):
        K, V = self.W_K(x_kv), self.W_V(x_kv)
        Q = self.W_Q(x_q.mul_(self.d_k ** -0.5))
        scores = Q @ K.transpose(-2, -1)
        if mask is not None:
            scores = scores.masked_fill(mask == 0, float("-inf"))
        weights = F.softmax(scores, dim=-1)
        return weights @ V, weights
'''
