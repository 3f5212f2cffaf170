"""Wrong single_head_attention submission: the layer applies the mask only in eval() mode."""

ASSIGNMENT = 'single_head_attention'
CAUGHT_BY = [
    'test_layer_training_mode',
]
MISTAKE = ("Applies the mask only when not self.training (as if masks were an inference-time detail): in training, "
           "masked keys get weight.")
MISTAKE_ID = ['train-mode-differs', 'mask-not-applied']
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
        scores = Q @ K.transpose(-2, -1) / math.sqrt(self.d_k)
        if mask is not None and not self.training:
            scores = scores.masked_fill(mask == 0, float("-inf"))
        weights = F.softmax(scores, dim=-1)
        return weights @ V, weights
'''
