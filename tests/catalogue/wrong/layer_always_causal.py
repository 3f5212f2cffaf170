"""Wrong single_head_attention submission: Applies a causal mask whenever a mask is given, whatever that mask says."""

ASSIGNMENT = 'single_head_attention'
CAUGHT_BY = [
    'test_layer_masks',
]
MISTAKE = 'Applies a causal mask whenever a mask is given, whatever that mask says.'
MISTAKE_ID = 'mask-always-causal'
CODE = '''class SingleHeadAttention(nn.Module):
    def __init__(self, d_model, d_k):
        super().__init__()
        self.W_Q = nn.Linear(d_model, d_k, bias=False)
        self.W_K = nn.Linear(d_model, d_k, bias=False)
        self.W_V = nn.Linear(d_model, d_k, bias=False)

    def forward(self, x_q, x_kv, mask=None):
        if mask is not None:
            mask = torch.ones(x_q.shape[1], x_kv.shape[1], dtype=torch.bool).tril()
        return attention(self.W_Q(x_q), self.W_K(x_kv), self.W_V(x_kv), mask)
'''
