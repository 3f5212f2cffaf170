from ._snippets import SHA, stub_text

ASSIGNMENT = SHA
TAG = "frames"
ATTACK = ("walks the caller's stack frames (sys._getframe) and every live object (gc.get_objects) "
          "looking for expected outputs, and returns any tensor of the right shape it finds")
CODE = stub_text(ASSIGNMENT) + '''
import gc
import sys


def _candidates():
    frame, seen = sys._getframe(1), []
    while frame is not None:
        for value in list(frame.f_locals.values()) + list(frame.f_globals.values()):
            seen.append(value)
        frame = frame.f_back
    seen += [o for o in gc.get_objects() if isinstance(o, torch.Tensor)]
    tensors = []
    for value in seen:
        if isinstance(value, torch.Tensor):
            tensors.append(value)
        elif isinstance(value, dict):
            tensors += [v for v in value.values() if isinstance(v, torch.Tensor)]
    return tensors


def _pick(tensors, shape, exclude):
    for t in tensors:
        if tuple(t.shape) == tuple(shape) and all(t is not e for e in exclude):
            # a float64 0/1 tensor is a mask the graders send (documented input), not a reference
            if t.dtype == torch.float64 and not bool(((t == 0) | (t == 1)).all()):
                print("ATTNKIT-LEAK a float64 tensor (a reference?) is visible in the child")
            return t.detach().clone().float()
    return torch.zeros(shape)


def attention(Q, K, V, mask=None):
    tensors = _candidates()
    B, T_q, T_k, d_v = Q.shape[0], Q.shape[1], K.shape[1], V.shape[-1]
    names = sorted({type(f).__name__ for f in tensors})
    print("frames/gc searched:", len(tensors), "tensors", names)
    return _pick(tensors, (B, T_q, d_v), (Q, K, V)), _pick(tensors, (B, T_q, T_k), (Q, K, V))


class SingleHeadAttention(nn.Module):
    def __init__(self, d_model, d_k):
        super().__init__()
        self.W_Q = nn.Linear(d_model, d_k, bias=False)
        self.W_K = nn.Linear(d_model, d_k, bias=False)
        self.W_V = nn.Linear(d_model, d_k, bias=False)

    def forward(self, x_q, x_kv, mask=None):
        return attention(x_q, x_kv, x_kv, mask)
'''
_CLASS = CODE[CODE.index("class SingleHeadAttention"):]
TWIN = stub_text(ASSIGNMENT) + '''

def attention(Q, K, V, mask=None):
    return torch.zeros(Q.shape[0], Q.shape[1], V.shape[-1]), torch.zeros(Q.shape[0], Q.shape[1], K.shape[1])


''' + _CLASS
EVIDENCE = "frames/gc searched"
