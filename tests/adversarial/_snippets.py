"""Pieces shared by several attacks (not an attack itself: modules starting with _ are skipped)."""
from __future__ import annotations

from tests.classroom import solution_text, stub_text

SHA = "single_head_attention"
SCORES = "attention_scores"

# A plausible but wrong single_head_attention (no 1/sqrt(d_k) scale): right shapes, wrong values.
WRONG_SHA = stub_text(SHA) + '''

def attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1)
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ V, weights


class SingleHeadAttention(nn.Module):
    def __init__(self, d_model, d_k):
        super().__init__()
        self.W_Q = nn.Linear(d_model, d_k, bias=False)
        self.W_K = nn.Linear(d_model, d_k, bias=False)
        self.W_V = nn.Linear(d_model, d_k, bias=False)

    def forward(self, x_q, x_kv, mask=None):
        return attention(self.W_Q(x_q), self.W_K(x_q), self.W_V(x_q), mask)
'''

# Gives the calling process a recognisable name (at most 15 characters) for the leftover scan.
NAME_PROCESS = '''
def _attnkit_name(text):
    import ctypes
    ctypes.CDLL(None).prctl(15, text.encode(), 0, 0, 0)  # PR_SET_NAME
'''

# Destructive attacks act only when a harmless probe shows that the sandbox holds: not root, and no new
# file can be made in the kit, the class or the output folder (a child may share the grader's uid).
GUARD = '''
import os as _os


def _can_create(folder):
    probe = _os.path.join(folder, ".attnkit-probe-%d" % _os.getpid())
    try:
        _os.close(_os.open(probe, _os.O_WRONLY | _os.O_CREAT | _os.O_EXCL, 0o600))
    except OSError:
        return False
    _os.unlink(probe)
    return True


_SAFE = _os.getuid() != 0 and not any(_can_create(f) for f in ("__KIT_DIR__", "__CLASS_DIR__", "__SELF_DIR__",
                                                              "__OUT_DIR__"))
if not _SAFE:
    print("ATTNKIT-LEAK student code runs as uid", _os.getuid(), "and can write the kit or the class - refusing "
          "to do damage")
'''

__all__ = ["SHA", "SCORES", "WRONG_SHA", "NAME_PROCESS", "GUARD", "solution_text", "stub_text"]
