"""Forbidden attention routes are recognised by what runs, never by the name of a student's function.

A student's own copy of PyTorch's `multi_head_attention_forward`, computed by hand and starting with PyTorch's
`has_torch_function`/`handle_torch_function` preamble, scored 0 in attention and the layer as "ran
multi_head_attention_forward": the preamble hands the student's function to the kernel watch's torch-function
mode, which matched it by name. Generated here, through the real sandbox: hand-written attention under every
fused route's name, in every disguise (plain, the preamble, torch's module and qualified name, functools.wraps of
torch's own function, a callable object) is never reported and gives the right values; PyTorch's own routes
reached under a student's names still are.
"""
from __future__ import annotations

import math

import pytest
import torch

from autograder.grading.probes import random_mask
from autograder.grading.student import StudentFault, StudentFile
from autograder.sandbox import ForkServer
from tests.classroom import loaded_file, solution_text

NAMES = ("multi_head_attention_forward", "scaled_dot_product_attention", "flex_attention",
         "_scaled_dot_product_flash_attention_for_cpu", "_native_multi_head_attention", "_safe_softmax",
         "_transformer_encoder_layer_fwd", "_fused_sdp_choice")

BODY = '''    scores = query @ key.transpose(-2, -1) / math.sqrt(query.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ value, weights
'''
PREAMBLE = '''    if has_torch_function((query, key, value)):
        return handle_torch_function(NAME, (query, key, value), query, key, value, mask)
'''
DISGUISES = {
    "plain": "def NAME(query, key, value, mask=None):\n" + BODY,
    "the has_torch_function preamble": "def NAME(query, key, value, mask=None):\n" + PREAMBLE + BODY,
    "torch's module and qualified name": ("def NAME(query, key, value, mask=None):\n" + PREAMBLE + BODY
                                          + "NAME.__module__ = 'torch.nn.functional'\nNAME.__qualname__ = 'NAME'\n"),
    "functools.wraps of torch's own": ("@functools.wraps(F.scaled_dot_product_attention)\n"
                                       "def NAME(query, key, value, mask=None):\n" + PREAMBLE + BODY),
    "a callable object": ("class _NAME:\n    __name__ = 'NAME'\n\n    def __call__(self, query, key, value, mask=None):\n"
                          + "".join("    " + line + "\n" for line in BODY.splitlines()) + "\n\nNAME = _NAME()\n"),
}
HEADER = ("\n\nimport functools\nimport math\nimport torch\nimport torch.nn.functional as F\n"
          "from torch.overrides import has_torch_function, handle_torch_function\n")

# PyTorch's own routes under a student's names: each must still be reported (and refused)
REAL_ROUTES = {
    "an alias": "mine = F.scaled_dot_product_attention\n\ndef real(Q, K, V, mask=None):\n    return mine(Q, K, V), None\n",
    "a name put together": ("def real(Q, K, V, mask=None):\n"
                            "    return getattr(F, 'scaled_dot_' + 'product_attention')(Q, K, V), None\n"),
    "an operator overload": ("def real(Q, K, V, mask=None):\n"
                             "    return torch.ops.aten._scaled_dot_product_flash_attention_for_cpu.default("
                             "Q.unsqueeze(1), K.unsqueeze(1), V.unsqueeze(1))[0].squeeze(1), None\n"),
    "a student wrapper around the real one": ("def multi_head_attention_forward(Q, K, V, mask=None):\n"
                                              "    return F.scaled_dot_product_attention(Q, K, V), None\n\n"
                                              "def real(Q, K, V, mask=None):\n"
                                              "    return multi_head_attention_forward(Q, K, V)\n"),
}


@pytest.fixture(scope="module")
def server():
    server = ForkServer()
    yield server
    server.close()


def student_file(server, text: str) -> StudentFile:
    return loaded_file(server, text, "single_head_attention")


def disguised_file(disguise: str) -> str:
    text = solution_text("single_head_attention") + HEADER
    for n, name in enumerate(NAMES):
        text += "\n\n" + DISGUISES[disguise].replace("NAME", name)
        text += f"\n\ndef via_{n}(Q, K, V, mask=None):\n    return {name}(Q, K, V, mask)\n"
    return text


def reference(Q, K, V, mask):
    scores = Q.double() @ K.double().transpose(-2, -1) / math.sqrt(Q.shape[-1])
    weights = torch.softmax(scores.masked_fill(mask == 0, float("-inf")), dim=-1)
    return weights @ V.double(), weights


@pytest.mark.parametrize("disguise", sorted(DISGUISES))
def test_own_code_under_torch_names_is_not_a_fused_route(server, disguise):
    student = student_file(server, disguised_file(disguise))
    g = torch.Generator().manual_seed(3)
    Q, K, V = torch.randn(2, 3, 4, generator=g), torch.randn(2, 5, 4, generator=g), torch.randn(2, 5, 6, generator=g)
    mask = random_mask(4, 2, 3, 5)
    want_out, want_w = reference(Q, K, V, mask)
    wrong = []
    for n, name in enumerate(NAMES):
        try:
            output, weights = student.run(f"via_{n}", Q, K, V, mask, grad_args=(0,),
                                          backward={"index": 0, "grad": torch.ones(2, 3, 6)}).output
        except StudentFault as fault:
            wrong.append(f"{name}: {str(fault)[:160]}")
            continue
        if not (torch.allclose(output.double(), want_out, atol=1e-5) and torch.allclose(weights.double(), want_w,
                                                                                          atol=1e-6)):
            wrong.append(f"{name}: wrong values")
    student.close()
    assert not wrong, "\n".join(wrong)


def test_torchs_own_routes_under_a_students_names_are_reported(server):
    text = solution_text("single_head_attention") + HEADER
    for n, code in enumerate(REAL_ROUTES.values()):
        text += "\n\n" + code.replace("real(", f"real_{n}(").replace("multi_head_attention_forward",
                                                                    f"multi_head_attention_forward_{n}")
    student = student_file(server, text)
    Q, K, V = torch.randn(2, 3, 4), torch.randn(2, 5, 4), torch.randn(2, 5, 6)
    missed = []
    for n, route in enumerate(REAL_ROUTES):
        try:
            student.run(f"real_{n}", Q, K, V)
            missed.append(f"{route}: not reported")
        except StudentFault as fault:
            if " ran " not in str(fault):
                missed.append(f"{route}: failed otherwise ({str(fault)[:160]})")
    student.close()
    assert not missed, "\n".join(missed)


def test_the_catalogues_own_mha_forward_copy_gets_the_layer_right(server):
    """The correct catalogue entry (a hand-written multi_head_attention_forward with the preamble) through the
    layer: no route reported, the reference's values (the whole engine grades it in test_catalogue)."""
    from tests.test_catalogue import CORRECT, student_text

    student = student_file(server, student_text("sha_own_mha_forward_with_preamble"))
    g = torch.Generator().manual_seed(8)
    x_q, x_kv = torch.randn(2, 3, 6, generator=g), torch.randn(2, 5, 6, generator=g)
    weights = {f"W_{n}.weight": torch.randn(4, 6, generator=g) for n in "QKV"}
    mask = random_mask(9, 3, 5)
    output, attn = student.run("SingleHeadAttention", x_q, x_kv, mask, init=(6, 4), params=weights).output
    Q, K, V = (x.double() @ weights[f"W_{n}.weight"].double().T for n, x in (("Q", x_q), ("K", x_kv), ("V", x_kv)))
    want_out, want_w = reference(Q, K, V, mask)
    assert torch.allclose(output.double(), want_out, atol=1e-5) and torch.allclose(attn.double(), want_w, atol=1e-6)
    assert "sha_own_mha_forward_with_preamble" in CORRECT
    student.close()
