"""Fused attention is switched off in the fork server (autograder/sandbox/child/forbid.py), for every
route the handout bans, in the main thread and in any other thread, while plain operations still work.

The routes run in a fresh Python process that installs the refusals the way the zygote does (forbid.py
is child code: installing it here would switch the kernels off for the test process too). A second test
grades files that take these routes through the real engine and sandbox.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap

import pytest

from autograder import paths
from tests.classroom import grade, scores_by_test, solution_text, write_class

CHILD_DIR = paths.ROOT / "autograder" / "sandbox" / "child"

ROUTES = {
    "F.scaled_dot_product_attention": "F.scaled_dot_product_attention(q, k, v)",
    "F.scaled_dot_product_attention with grad": "F.scaled_dot_product_attention(q.requires_grad_(), k, v)",
    "F.scaled_dot_product_attention with a bool mask": "F.scaled_dot_product_attention(q, k, v, attn_mask=m)",
    "torch.ops.aten.scaled_dot_product_attention": "torch.ops.aten.scaled_dot_product_attention(q, k, v)",
    "the math kernel": "torch.ops.aten._scaled_dot_product_attention_math(q, k, v)",
    "the flash kernel for CPU": "torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(q4, k4, v4)",
    "the flash kernel for CPU, .default": "torch.ops.aten._scaled_dot_product_flash_attention_for_cpu.default(q4, k4, v4)",
    "the efficient kernel": "torch.ops.aten._scaled_dot_product_efficient_attention(q4, k4, v4, None, False)",
    "the overrideable kernel": "torch.ops.aten._scaled_dot_product_fused_attention_overrideable(q4, k4, v4)",
    "the kernel choice": "torch.ops.aten._fused_sdp_choice(q4, k4, v4)",
    "_safe_softmax": "torch._safe_softmax(q, -1)",
    "_masked_softmax": "torch._masked_softmax(q, m)",
    "_native_multi_head_attention": "torch._native_multi_head_attention(q, q, q, 8, 2, torch.randn(24, 8), "
                                    "torch.randn(24), torch.randn(8, 8), torch.randn(8))",
    "nn.MultiheadAttention": "nn.MultiheadAttention(8, 2, batch_first=True)(q, q, q)",
    "nn.MultiheadAttention in eval, fast path": "nn.MultiheadAttention(8, 2, batch_first=True).eval()(q, q, q, "
                                               "need_weights=False)",
    "F.multi_head_attention_forward": "F.multi_head_attention_forward(q, q, q, 8, 1, torch.randn(24, 8), None, None, "
                                      "None, False, 0.0, torch.randn(8, 8), None, need_weights=True)",
    "nn.TransformerEncoderLayer, fast path": "nn.TransformerEncoderLayer(8, 2, batch_first=True).eval()(q)",
    "nn.TransformerEncoderLayer, training": "nn.TransformerEncoderLayer(8, 2, batch_first=True)(q)",
    "nn.TransformerDecoderLayer": "nn.TransformerDecoderLayer(8, 2, batch_first=True)(q, k)",
    "the encoder layer kernel": "torch._transformer_encoder_layer_fwd(q, 8, 2, torch.randn(24, 8), torch.randn(24), "
                                "torch.randn(8, 8), torch.randn(8), False, False, 1e-5, torch.ones(8), "
                                "torch.zeros(8), torch.ones(8), torch.zeros(8), torch.randn(16, 8), torch.randn(16), "
                                "torch.randn(8, 16), torch.randn(8))",
    "quantizable MultiheadAttention": "__import__('torch.ao.nn.quantizable', fromlist=['x']).MultiheadAttention("
                                      "8, 2, batch_first=True)(q, q, q)",
    "flex_attention": "__import__('torch.nn.attention.flex_attention', fromlist=['x']).flex_attention(q4, k4, v4)",
    "the decomposition of the flash kernel": "__import__('torch._decomp', fromlist=['x']).decomposition_table["
                                             "torch.ops.aten._scaled_dot_product_flash_attention_for_cpu.default]"
                                             "(q4, k4, v4)",
    "vmap over scaled_dot_product_attention": "torch.vmap(F.scaled_dot_product_attention)(q4, k4, v4)",
    "nested tensors": "F.scaled_dot_product_attention(*[torch.nested.nested_tensor([torch.randn(2, 3, 8), "
                      "torch.randn(2, 5, 8)])] * 3)",
    "autocast": "torch.autocast('cpu')(F.scaled_dot_product_attention)(q, k, v)",
    "torch.onnx.ops.attention": "__import__('torch.onnx.ops', fromlist=['x']).attention(q4, k4, v4, "
                                "qk_matmul_output_mode=3)",
    "the ONNX Attention operator": "torch.ops.onnx.Attention.opset23(q4, k4, v4, qk_matmul_output_mode=3)",
    "a jit-traced call": "torch.jit.trace(lambda a, b, c: F.scaled_dot_product_attention(a, b, c), (q, k, v))",
}
ALLOWED = {  # what the exercises do must keep working
    "softmax": "F.softmax(q @ k.transpose(-2, -1), dim=-1)",
    "masked_fill": "q.masked_fill(~m, float('-inf')).softmax(-1)",
    "linear and backward": "nn.Linear(8, 8)(q.requires_grad_()).softmax(-1).sum().backward()",
    "einsum": "torch.einsum('bqd,bkd->bqk', q, k)",
    "logsumexp": "(q - q.logsumexp(-1, keepdim=True)).exp()",
}

SCRIPT = textwrap.dedent("""
    import json, sys, threading, warnings
    warnings.simplefilter("ignore")
    sys.path.insert(0, sys.argv[1])
    import torch
    from torch import nn
    import torch.nn.functional as F
    import forbid
    forbid.install()
    routes = json.loads(sys.argv[2])

    def run_all():
        q, k, v = torch.randn(2, 3, 8), torch.randn(2, 5, 8), torch.randn(2, 5, 8)
        q4, k4, v4 = q[:, None], k[:, None], v[:, None]
        m = torch.rand(2, 3, 8) > 0.3
        seen = {}
        for name, code in routes.items():
            try:
                eval(code)
                seen[name] = "ran"
            except forbid.ForbiddenKernel:
                seen[name] = "refused"
            except Exception as exc:  # noqa: BLE001 - any other failure is reported as such
                seen[name] = f"{type(exc).__name__}: {exc}"[:300]
        return seen

    main = run_all()
    other = {}
    thread = threading.Thread(target=lambda: other.update(run_all()))
    thread.start()
    thread.join()
    print(json.dumps({"main": main, "thread": other}))
""")


def run_routes(routes: dict) -> dict:
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(CHILD_DIR), json.dumps(routes)],
                          capture_output=True, text=True, timeout=300, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def outcomes():
    return run_routes({**ROUTES, **{f"allowed: {k}": v for k, v in ALLOWED.items()}})


@pytest.mark.parametrize("thread", ["main", "thread"])
@pytest.mark.parametrize("route", sorted(ROUTES))
def test_every_banned_route_is_refused(outcomes, route, thread):
    assert outcomes[thread][route] == "refused", f"{route} in the {thread} thread: {outcomes[thread][route]}"


@pytest.mark.parametrize("thread", ["main", "thread"])
@pytest.mark.parametrize("name", sorted(ALLOWED))
def test_what_the_exercises_use_still_runs(outcomes, name, thread):
    assert outcomes[thread][f"allowed: {name}"] == "ran"


CHEATS = {
    # each computes attention with a banned route in a way the watch does not see; all must earn nothing
    "thread": """
import threading
def attention(Q, K, V, mask=None):
    box = {}
    def work():
        box["out"] = F.scaled_dot_product_attention(Q, K, V, attn_mask=None if mask is None else mask.bool())
    worker = threading.Thread(target=work)
    worker.start(); worker.join()
    out = box["out"]
    scores = Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    return out, scores.softmax(-1)
""",
    "watch_removed": """
import sys
_watch = sys.modules.get("watch")
if _watch is not None:
    class _Quiet:
        def __init__(self): self.fused = set()
        def __enter__(self): return self
        def __exit__(self, *exc): pass
        def report(self): return {"fused": [], "watch": "on"}
    _watch.Watch = _Quiet
def attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    return F.scaled_dot_product_attention(Q, K, V, attn_mask=None if mask is None else mask.bool()), scores.softmax(-1)
""",
    "operator_registered": """
_lib = torch.library.Library("attnkit_cheat", "DEF")
_lib.define("sdpa(Tensor q, Tensor k, Tensor v) -> Tensor")
_lib.impl("sdpa", lambda q, k, v: torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(
    q[:, None], k[:, None], v[:, None])[0][:, 0], "CPU")
def attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    weights = scores.softmax(-1)
    return (torch.ops.attnkit_cheat.sdpa(Q, K, V) if mask is None else weights @ V), weights
""",
}


@pytest.mark.slow
def test_cheats_that_hide_the_kernel_from_the_watch_earn_nothing(tmp_path):
    """Through the real engine: attention() that reaches a fused kernel from another thread, with the watch
    replaced, or through an operator registered at run time, earns no point of its value tests."""
    students = {name: {"single_head_attention.py": solution_text("single_head_attention") + "\n" + code}
                for name, code in CHEATS.items()}
    results = grade(write_class(tmp_path / "class", students), tmp_path / "out", workers=2)
    for name in CHEATS:
        scores = scores_by_test(results[name])
        for test in ("test_attention_values", "test_attention_mixes_values", "test_attention_large_scores"):
            assert scores[test] == 0, f"{name}: {test} scored {scores[test]}"
        flag = {t.test_id.split("::", 1)[1]: t for t in results[name].tests}["test_file_leaves_the_kernel_watch_alone"]
        assert flag.status.lower() == "failed" and "Flagged for your instructor" in flag.output, f"{name} is not flagged"


# Every module of the installed torch that defines a function or class named for attention is either switched off
# by forbid.py (its computing functions are PYTHON_ROUTES, or reach a refused kernel), or computes no attention a
# child could use; a torch upgrade that adds one fails here until it is looked at.
ATTENTION_NAME = re.compile(r"attention|attn|sdpa", re.IGNORECASE)
DEFINES_ATTENTION = re.compile(r"(def|class)\s+\w*(attention|attn|sdpa)", re.IGNORECASE)
SWITCHED_OFF = {  # module -> why nothing in it computes attention in the child
    "torch._decomp.decompositions": "its attention decomposition is a PYTHON_ROUTE",
    "torch._higher_order_ops.flex_attention": "its eager kernels are PYTHON_ROUTES; the rest dispatches to them",
    "torch.ao.nn.quantizable.modules.activation": "MultiheadAttention.forward and _forward_impl are PYTHON_ROUTES",
    "torch.ao.nn.quantized.modules.activation": "inherits the quantizable MultiheadAttention's refused forward",
    "torch.nn.attention.flex_attention": "flex_attention is a PYTHON_ROUTE",
    "torch.nn.functional": "multi_head_attention_forward is a PYTHON_ROUTE; scaled_dot_product_attention a kernel",
    "torch.nn.modules.activation": "MultiheadAttention.forward is a PYTHON_ROUTE",
    "torch.onnx.ops": "attention is a PYTHON_ROUTE",
    "torch.onnx.ops._impl": "attention_23 is the onnx::Attention operator, refused as a kernel",
    "torch.nn.attention.experimental._scaled_dot_product_attention_quantized": "calls the refused flash kernel",
    "torch.nn.attention.experimental._paged_attention": "runs through flex_attention (refused)",
    "torch.nn.attention.varlen": "calls the refused flash kernel",
    "torch.nested._internal.sdpa": "nested tensors dispatch to the refused kernels",
}
NOT_A_ROUTE = {  # module prefix -> why it computes no attention a child can use
    "torch._meta_registrations": "shapes of meta tensors, no values",
    "torch._dynamo.": "torch.compile's tracing (compiling needs a compiler process: none can start in the child)",
    "torch._inductor.": "torch.compile's code generation (likewise)",
    "torch._subclasses.fake_utils": "fake tensors: no values",
    "torch.backends.cuda": "availability checks",
    "torch.distributed.": "sharding rules and ring attention over the refused kernels (needs a process group)",
    "torch.nested._internal.nested_tensor": "a sequence-length helper",
    "torch.nn.attention._": "registration and checks of CUDA flash kernels",
    "torch.nn.attention": "kernel-choice context managers",
    "torch.onnx._internal.": "ONNX export: builds graphs, computes nothing",
    "torch.testing._internal.": "PyTorch's own test inputs and checks",
    "torch.utils.flop_counter": "FLOP counts",
    "torch.sparse._triton_ops": "Triton GPU kernels, defined only where Triton is installed (never in the kit's)",
}


def attention_definitions() -> dict[str, list[str]]:
    """module -> the functions and classes it defines whose names speak of attention (read from the sources)."""
    import ast
    from pathlib import Path

    import torch

    root = Path(torch.__file__).parent
    found: dict[str, list[str]] = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root.parent).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        try:
            text = path.read_text(encoding="utf-8")
            if not DEFINES_ATTENTION.search(text):  # most files: no such definition, no parse
                continue
            tree = ast.parse(text)
        except (SyntaxError, UnicodeDecodeError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and ATTENTION_NAME.search(node.name):
                found.setdefault(module, []).append(node.name)
    return found


def test_every_attention_definition_in_torch_is_switched_off_or_no_route():
    unknown = {module: names for module, names in attention_definitions().items()
               if module not in SWITCHED_OFF and not any(
                   module == prefix or (prefix.endswith((".", "_")) and module.startswith(prefix))
                   for prefix in NOT_A_ROUTE)}
    assert not unknown, f"attention code in torch that forbid.py does not account for: {unknown}"
    routed = {module for module, _ in forbid_routes()}
    assert {m for m, why in SWITCHED_OFF.items() if "PYTHON_ROUTE" in why} <= routed


def forbid_routes() -> tuple:
    """forbid.PYTHON_ROUTES, read from its source (importing forbid.py here would need torch's kernels off)."""
    import ast

    tree = ast.parse((CHILD_DIR / "forbid.py").read_text(encoding="utf-8"))
    return next(ast.literal_eval(node.value) for node in tree.body
                if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "PYTHON_ROUTES")
