from ._snippets import SHA, stub_text

ASSIGNMENT = SHA
TAG = "pickle"
ATTACK = ("returns objects whose unpickling would run a shell command, and rewires the child's wire "
          "module so that replies are raw pickles")
CODE = stub_text(ASSIGNMENT) + '''
import os
import pickle


class Payload:
    def __reduce__(self):
        return (os.system, ("touch __CANARY__",))


def attention(Q, K, V, mask=None):
    return Payload(), Payload()


class SingleHeadAttention(nn.Module):
    def __init__(self, d_model, d_k):
        super().__init__()
        self.W_Q = nn.Linear(d_model, d_k, bias=False)
        self.W_K = nn.Linear(d_model, d_k, bias=False)
        self.W_V = nn.Linear(d_model, d_k, bias=False)

    def forward(self, x_q, x_kv, mask=None):
        import struct
        import sys
        wire = sys.modules["wire"]  # the harness's own encoder, loaded in this process
        blob = pickle.dumps(Payload())
        wire.encode = lambda message: struct.pack(">QQ", len(blob), 0) + blob
        return Payload()
'''
TWIN = stub_text(ASSIGNMENT)
EVIDENCE = "not a tensor"
