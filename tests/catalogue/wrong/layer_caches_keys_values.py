"""Wrong single_head_attention submission: Computes K and V on the first call only and reuses them afterwards (a cache that ignores new inputs)."""

ASSIGNMENT = 'single_head_attention'
CAUGHT_BY = [
    'test_layer_self_attention',
    'test_layer_cross_attention',
    'test_layer_masks',
]
MISTAKE = 'Computes K and V on the first call only and reuses them afterwards (a cache that ignores new inputs).'
MISTAKE_ID = 'kv-cached'
CODE = '''class SingleHeadAttention(nn.Module):
    def __init__(self, d_model, d_k):
        super().__init__()
        self.W_Q = nn.Linear(d_model, d_k, bias=False)
        self.W_K = nn.Linear(d_model, d_k, bias=False)
        self.W_V = nn.Linear(d_model, d_k, bias=False)
        self.cache = None

    def forward(self, x_q, x_kv, mask=None):
        if self.cache is None:
            self.cache = (self.W_K(x_kv), self.W_V(x_kv))
        K, V = self.cache
        return attention(self.W_Q(x_q), K, V, mask)
'''
