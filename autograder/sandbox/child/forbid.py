"""Switches the fused attention kernels off in the fork server, before any student file is loaded.

The exercises ask students to build attention from its steps, so every route to a ready-made attention
the handout bans must fail inside the child, whatever thread or name reaches it. Two kinds of route:

- ATen kernels (`F.scaled_dot_product_attention`, its math, flash-for-CPU, efficient, cuDNN and
  overrideable variants, `_native_multi_head_attention`, the transformer encoder fast path,
  `_masked_softmax`, `_safe_softmax`; ONNX's `Attention` operator): a kernel that refuses is registered with `torch.library` for every
  dispatch key where PyTorch has one (CPU, autograd, composite, nested, batched, autocast, meta...). The
  dispatcher then runs the refusal whichever Python name, `torch.ops` overload or C++ caller asks.
  The registration handle is leaked on purpose and no Python object refers to it, so it cannot be undone.
- Python functions that compute attention from plain operations (`F.multi_head_attention_forward`,
  `nn.MultiheadAttention.forward` and the quantizable twin, `flex_attention` and its eager kernels, the
  decompositions of the fused kernels, `torch.onnx.ops.attention`): their code object is replaced in place, so every reference to
  them anywhere runs the refusal, and the original code is freed.

The zygote runs this before it forks, so every child, and any thread a child starts, inherits it. A call
that reaches a refusal is recorded in `REACHED` (the watch reports it, as evidence for the feedback) and
raises ForbiddenKernel. What a student would have to do to get around this: docs/kernels.md.
"""
from __future__ import annotations

import ctypes
import importlib
import re
import types
import warnings

import torch

MESSAGE = ("{name} is switched off while grading: the exercise is to build attention yourself (score -> mask -> "
           "softmax -> mix), so fused attention and PyTorch's own attention code cannot run here.")
KERNELS = re.compile(r"^aten::(scaled_dot_product_attention|_scaled_dot_product_\w+|_flash_attention_\w+"
                     r"|_efficient_attention_\w+|_cudnn_attention_\w+|_native_multi_head_attention"
                     r"|_transformer_encoder_layer_fwd|_triton_\w*attention|_fused_sdp_choice|_masked_softmax"
                     r"|_masked_softmax_backward|_safe_softmax)(\.\w+)?$"
                     r"|^onnx::Attention(\.\w+)?$")  # ONNX's Attention-23: matmul, softmax, matmul in Python
# Modules that register attention operators when imported: imported first, so that their operators exist and
# are refused like ATen's (a student importing them later finds them already loaded, and refused).
REGISTERING = ("torch.onnx.ops",)
PYTHON_ROUTES = (
    ("torch.nn.functional", "multi_head_attention_forward"),
    ("torch.nn.modules.activation", "MultiheadAttention.forward"),
    ("torch.ao.nn.quantizable.modules.activation", "MultiheadAttention.forward"),
    ("torch.ao.nn.quantizable.modules.activation", "MultiheadAttention._forward_impl"),
    ("torch.nn.attention.flex_attention", "flex_attention"),
    ("torch._higher_order_ops.flex_attention", "sdpa_dense"),
    ("torch._higher_order_ops.flex_attention", "math_attention"),
    ("torch._higher_order_ops.flex_attention", "_math_attention_inner"),
    ("torch._higher_order_ops.flex_attention", "sdpa_dense_backward"),
    ("torch._decomp.decompositions", "scaled_dot_product_flash_attention_for_cpu"),
    ("torch._decomp.decompositions", "safe_softmax"),
    ("torch.onnx.ops", "attention"),
)

REACHED: set[str] = set()


class ForbiddenKernel(RuntimeError):
    """Raised by every switched-off route."""


def refuse(name: str):
    REACHED.add(name)
    raise ForbiddenKernel(MESSAGE.format(name=name))


def _refusing_kernel(name: str):
    def kernel(*args, **kwargs):
        refuse(name)
    return kernel


def _kernel_names() -> list[str]:
    return sorted(n for n in torch._C._dispatch_get_all_op_names() if KERNELS.match(n))


def _dispatch_keys() -> list[str]:
    keys = []
    for key in torch._C.DispatchKey.__members__:
        try:
            torch._C._dispatch_has_kernel_for_dispatch_key("aten::add.Tensor", key)
        except RuntimeError:  # range markers such as StartOfDenseBackends are not keys
            continue
        keys.append(key)
    return keys


def _register_kernels() -> list[tuple[str, str]]:
    """One refusing kernel per (operator, key) where PyTorch has a kernel or a composite fills one in."""
    for module in REGISTERING:
        try:
            importlib.import_module(module)
        except ImportError:
            pass
    libraries: dict[str, object] = {}
    done = []
    keys = _dispatch_keys()  # every key: vmap's decompositions, autocast, nested tensors too
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Overriding a previously registered kernel": that is the point
        for name in _kernel_names():
            namespace, short = name.split("::", 1)
            if namespace not in libraries:
                libraries[namespace] = torch._C._dispatch_library("IMPL", namespace, "", "<grader>", 0)
            for key in keys:
                if torch._C._dispatch_has_kernel_for_dispatch_key(name, key):
                    libraries[namespace].impl(short, key, _refusing_kernel(name), False)
                    done.append((name, key))
    # A handle would restore PyTorch's kernels when freed: keep one reference that no Python object holds.
    for library in libraries.values():
        ctypes.pythonapi.Py_IncRef(ctypes.py_object(library))
    return done


def _replace_code(module_name: str, path: str) -> bool:
    try:
        holder = importlib.import_module(module_name)
    except ImportError:
        return False
    *outer, last = path.split(".")
    for part in outer:
        holder = getattr(holder, part, None)
    function = getattr(holder, last, None) if holder is not None else None
    if not isinstance(function, types.FunctionType) or function.__code__.co_freevars:
        return False
    label = f"{module_name}.{path}"
    refusal = compile(f"def {last}(*args, **kwargs):\n    __import__('forbid').refuse({label!r})\n",
                      f"<grader: {label} is switched off>", "exec")
    function.__code__ = next(c for c in refusal.co_consts if isinstance(c, types.CodeType))
    return True


def install() -> dict:
    """Switch every route off; returns what was switched off (for the zygote's self-test and the tests)."""
    kernels = _register_kernels()
    python = [f"{m}.{p}" for m, p in PYTHON_ROUTES if _replace_code(m, p)]
    return {"kernels": kernels, "python": python}
