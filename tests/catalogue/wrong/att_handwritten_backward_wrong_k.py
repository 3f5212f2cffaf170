"""Wrong single_head_attention submission: a hand-written backward that forgets the scale in dK."""

ASSIGNMENT = 'single_head_attention'
CAUGHT_BY = [
    'test_attention_gradients',
]
MISTAKE = ("Computes attention in a torch.autograd.Function whose hand-written backward is right for Q and V but "
           "leaves the 1/sqrt(d_k) scale out of the gradient for K.")
MISTAKE_ID = 'backward-differs'
CODE = '''
class _Attention(torch.autograd.Function):
    @staticmethod
    def forward(ctx, Q, K, V, allowed):
        scale = 1 / math.sqrt(K.shape[-1])
        scores = Q @ K.transpose(-2, -1) * scale
        if allowed is not None:
            scores = scores.masked_fill(~allowed, float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        ctx.save_for_backward(Q, K, V, weights)
        ctx.scale = scale
        return weights @ V, weights

    @staticmethod
    def backward(ctx, grad_out, grad_weights):
        Q, K, V, weights = ctx.saved_tensors
        grad_w = grad_out @ V.transpose(-2, -1) + grad_weights
        grad_s = weights * (grad_w - (weights * grad_w).sum(-1, keepdim=True))
        grad_Q = grad_s @ K * ctx.scale
        grad_K = grad_s.transpose(-2, -1) @ Q
        grad_V = weights.transpose(-2, -1) @ grad_out
        return grad_Q, grad_K, grad_V, None


def attention(Q, K, V, mask=None):
    return _Attention.apply(Q, K, V, None if mask is None else mask != 0)
'''
