"""Wrong single_head_attention submission: Drops attention weights with F.dropout(training=True), so the layer is random even in eval() mode."""

ASSIGNMENT = 'single_head_attention'
CAUGHT_BY = [
    'test_layer_parameters',
    'test_layer_self_attention',
    'test_layer_cross_attention',
    'test_layer_masks',
]
MISTAKE = 'Drops attention weights with F.dropout(training=True), so the layer is random even in eval() mode.'
MISTAKE_ID = ['dropout-on-weights', 'random-result']
CODE = '''class SingleHeadAttention(nn.Module):
    def __init__(self, d_model, d_k):
        super().__init__()
        self.W_Q = nn.Linear(d_model, d_k, bias=False)
        self.W_K = nn.Linear(d_model, d_k, bias=False)
        self.W_V = nn.Linear(d_model, d_k, bias=False)

    def forward(self, x_q, x_kv, mask=None):
        Q, K, V = self.W_Q(x_q), self.W_K(x_kv), self.W_V(x_kv)
        scores = Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1])
        if mask is not None:
            scores = scores.masked_fill(mask == 0, float("-inf"))
        weights = F.dropout(F.softmax(scores, dim=-1), p=0.2, training=True)
        return weights @ V, weights
'''
