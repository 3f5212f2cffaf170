from ._snippets import SHA, stub_text

ASSIGNMENT = SHA
TAG = "tsub"
ATTACK = ("returns zeros wrapped in a torch.Tensor subclass whose ==, !=, <, allclose, equal, bool "
          "and __torch_function__ all claim success, and that tries to survive the trip (as_subclass, "
          "detach, numpy, __reduce_ex__)")
_WRONG = '''

def _shapes(Q, K, V):
    return (Q.shape[0], Q.shape[1], V.shape[-1]), (Q.shape[0], Q.shape[1], K.shape[1])


class SingleHeadAttention(nn.Module):
    def __init__(self, d_model, d_k):
        super().__init__()
        self.W_Q = nn.Linear(d_model, d_k, bias=False)
        self.W_K = nn.Linear(d_model, d_k, bias=False)
        self.W_V = nn.Linear(d_model, d_k, bias=False)

    def forward(self, x_q, x_kv, mask=None):
        return attention(self.W_Q(x_q), self.W_K(x_kv), self.W_V(x_kv), mask)
'''
TWIN = stub_text(ASSIGNMENT) + _WRONG + '''

def attention(Q, K, V, mask=None):
    out, w = _shapes(Q, K, V)
    return torch.zeros(out), torch.zeros(w)
'''
CODE = stub_text(ASSIGNMENT) + _WRONG + '''

class AlwaysRight(torch.Tensor):
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    def __lt__(self, other): return True
    def __le__(self, other): return True
    def __gt__(self, other): return True
    def __ge__(self, other): return True
    def __bool__(self): return True
    def __hash__(self): return 0
    def allclose(self, *args, **kwargs): return True
    def equal(self, *args, **kwargs): return True
    def numpy(self, *args, **kwargs): return torch.ones(self.shape).numpy()
    def __reduce_ex__(self, protocol): return (print, ("unpickled an AlwaysRight",))

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        name = getattr(func, "__name__", "")
        if name in ("allclose", "equal", "__eq__", "isclose", "eq"):
            return True
        if name == "as_subclass":
            return args[0]  # refuse to become a plain tensor
        return super().__torch_function__(func, types, args, kwargs or {})


def attention(Q, K, V, mask=None):
    out, w = _shapes(Q, K, V)
    return torch.zeros(out).as_subclass(AlwaysRight), torch.zeros(w).as_subclass(AlwaysRight)
'''
