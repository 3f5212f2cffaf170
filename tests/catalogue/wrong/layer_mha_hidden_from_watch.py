"""Wrong single_head_attention submission: nn.MultiheadAttention behind a torch-function switch found by getattr."""

ASSIGNMENT = 'single_head_attention'
CAUGHT_BY = [
    'test_layer_parameters',
    'test_layer_self_attention',
    'test_layer_cross_attention',
    'test_layer_masks',
    'test_layer_gradients',
]
MISTAKE = ('Wraps nn.MultiheadAttention and switches torch functions off through getattr on a name built from '
           'pieces, so no name in the file gives it away: caught at run time (the watch sees the switch).')
MISTAKE_ID = 'forbidden-api'
CODE = '''
class SingleHeadAttention(nn.Module):
    def __init__(self, d_model, d_k):
        super().__init__()
        self.mha = nn.MultiheadAttention(d_k, 1, bias=False, batch_first=True)
        self.W_Q = nn.Linear(d_model, d_k, bias=False)
        self.W_K = nn.Linear(d_model, d_k, bias=False)
        self.W_V = nn.Linear(d_model, d_k, bias=False)

    def forward(self, x_q, x_kv, mask=None):
        quiet = getattr(torch._C, "Disable" + "Torch" + "Function")
        with quiet():
            blocked = None if mask is None else (mask == 0)
            return self.mha(self.W_Q(x_q), self.W_K(x_kv), self.W_V(x_kv), attn_mask=blocked)
'''
