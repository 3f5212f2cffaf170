from ._snippets import SHA, stub_text

ASSIGNMENT = SHA
TAG = "forge"
ATTACK = ("rewires the child's harness to answer every call itself: claims the right parameter names "
          "and 'inputs unchanged', and returns zeros of the right shapes, without any working code")
CODE = stub_text(ASSIGNMENT) + '''
import sys

import torch

_harness = sys.modules["harness"]
_inputs = sys.modules["inputs"]


def _forged_run(self, request):
    args = _inputs.materialize(request.get("args", []))
    reply = {"ok": True}
    if request.get("init") is not None:
        d_model, d_k = request["init"]
        reply["param_names"] = {f"W_{n}.weight": [d_k, d_model] for n in "QKV"}
        B, T_q, T_k = args[0].shape[0], args[0].shape[1], args[1].shape[1]
        reply["output"] = [torch.zeros(B, T_q, d_k), torch.zeros(B, T_q, T_k)]
    else:
        Q, K, V = args[:3]
        reply["output"] = [torch.zeros(Q.shape[0], Q.shape[1], V.shape[-1]),
                           torch.zeros(Q.shape[0], Q.shape[1], K.shape[1])]
    if request.get("check_inputs"):
        reply["inputs_changed"] = [False] * len(args)
    return reply


_harness.Harness.run = _forged_run
print("harness rewired")
'''
TWIN = stub_text(ASSIGNMENT)
EVIDENCE = "harness rewired"
_WHY = ("a child can rewrite its own harness, so whatever a probe reports about itself (parameter names, "
        "'inputs unchanged') is the student's word; tests that give points for such a report alone "
        "(test_layer_parameters, test_attention_leaves_inputs_alone) can be won without code. The fix "
        "belongs in the hidden tests: pay those points only together with a value checked against the "
        "reference")
XFAIL = {"bwrap": _WHY, "rlimits": _WHY}
