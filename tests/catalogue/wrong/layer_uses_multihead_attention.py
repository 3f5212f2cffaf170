"""Wrong single_head_attention submission: layer uses multihead attention."""

ASSIGNMENT = 'single_head_attention'
CAUGHT_BY = [
    'test_layer_parameters',
    'test_layer_self_attention',
    'test_layer_cross_attention',
    'test_layer_masks',
    'test_layer_gradients',
]
MISTAKE = 'Wraps nn.MultiheadAttention instead of building the layer by hand.'
MISTAKE_ID = 'forbidden-api'
CODE = '''
class SingleHeadAttention(nn.Module):
    def __init__(self, d_model, d_k):
        super().__init__()
        self.mha = nn.MultiheadAttention(d_model, 1, bias=False, batch_first=True, kdim=d_model, vdim=d_model)
        self.W_Q = nn.Linear(d_model, d_k, bias=False)
        self.W_K = nn.Linear(d_model, d_k, bias=False)
        self.W_V = nn.Linear(d_model, d_k, bias=False)

    def forward(self, x_q, x_kv, mask=None):
        Q, K, V = self.W_Q(x_q), self.W_K(x_kv), self.W_V(x_kv)
        blocked = None if mask is None else (mask == 0)
        output, weights = self.mha(x_q, x_kv, x_kv, attn_mask=blocked)
        return output, weights
'''
