"""Watches what runs while a student's function runs: did a fused attention kernel run?

The exercises ask students to build attention by hand, so the grader judges by what executes, not
by names in the source: a student's own helper may be called `scaled_dot_product_attention`, and
an alias, `getattr(F, "scaled_dot_" + "product_attention")` or `torch.ops.aten._scaled_dot_...`
still reaches the same kernel. Two records, both taken around the call (and its backward pass):

- a TorchFunctionMode sees every torch-level call (F.scaled_dot_product_attention however it was
  reached, torch.ops.aten.* overloads, F.multi_head_attention_forward that nn.MultiheadAttention
  and the nn.Transformer* layers use, flex_attention);
- forbid.py's refusals record every switched-off kernel or function that is reached, at the
  dispatcher, whichever thread, name or C++ caller reaches it (`forbid.REACHED`), also where the
  torch-level layer was bypassed (torch._C.DisableTorchFunction).

A route is recognised by what it is, never by a name a student can give their own code: the mode records a call
only when the callable is one of PyTorch's own attention entry points (the very objects, collected when this
module is imported in the fork server, before any student file runs) or an operator of PyTorch's registry whose
schema names a fused kernel. A student's own `multi_head_attention_forward` or `scaled_dot_product_attention`,
even one that starts with PyTorch's `has_torch_function`/`handle_torch_function` preamble (which hands the
student's function itself to the mode), computes by hand and is not recorded; if it reaches a real fused kernel,
that kernel's refusal records it.

The watch is evidence, not the defence: forbid.py has already switched every such route off in the
fork server, so a fused kernel raises whatever thread, name or trick reaches it. The watch says which
route a failing call took, for the feedback and for the instructor. There is no dispatch-level mode:
it cost a Python call on every ATen operation of every probe (two thirds of a layer's forward and
backward pass: bench/bench_watch.py) to see again what the refusals already record. The watch runs in the student's process,
so its report is the student's word like every other reply: the parent treats a missing or broken
watch as a failure, and a static check of the source flags deliberate attempts to switch it or the
refusals off.
"""
from __future__ import annotations

import importlib
import re

import forbid
import seeded
import torch
from torch._ops import OpOverload, OpOverloadPacket
from torch.overrides import TorchFunctionMode

FUSED = re.compile(r"scaled_dot_product|multi_head_attention|flex_attention|transformer_encoder_layer"
                   r"|_native_multi_head|_flash_attention|_efficient_attention|cudnn_attention|_fused_sdp"
                   # the math path of scaled_dot_product_attention, once decomposed, is plain bmm and softmax,
                   # except for this one kernel, which only it uses (F.softmax is aten._softmax)
                   r"|_safe_softmax")


# Where PyTorch keeps its attention entry points; every attribute of these whose name is a fused route's is kept
# as the object itself (a student's function of the same name is another object).
ENTRY_MODULES = ("torch", "torch.nn.functional", "torch._C._nn", "torch._C._VariableFunctions", "torch.nn.attention",
                 "torch.nn.attention.flex_attention", "torch.onnx.ops")


def _torch_entry_points() -> dict[int, tuple[object, str]]:
    """id -> (PyTorch's own callable, its name): the callables a torch-function mode can be handed for a fused
    route. The object is kept with its id, so the id is never reused by another object."""
    found: dict[int, tuple[object, str]] = {}
    holders = []
    for name in ENTRY_MODULES:
        try:
            holders.append(importlib.import_module(name))
        except ImportError:
            continue
    for module_name, path in forbid.PYTHON_ROUTES:
        try:
            holder = importlib.import_module(module_name)
        except ImportError:
            continue
        for part in path.split("."):
            holder = getattr(holder, part, None)
        if callable(holder):
            found[id(holder)] = (holder, f"{module_name}.{path}")
    for holder in holders:
        for attribute in dir(holder):
            if FUSED.search(attribute):
                value = getattr(holder, attribute, None)
                if callable(value) and not isinstance(value, type):
                    found.setdefault(id(value), (value, attribute))
    return found


TORCH_ENTRY_POINTS = _torch_entry_points()


def torch_route(func) -> str | None:
    """The fused route `func` is, if it is one of PyTorch's own: an entry point collected above, or an operator of
    PyTorch's registry (an OpOverload or its packet) whose qualified name is a fused kernel's."""
    known = TORCH_ENTRY_POINTS.get(id(func))
    if known is not None and known[0] is func:
        return known[1]
    if type(func) in (OpOverload, OpOverloadPacket):  # exactly these types: a student's subclass is not an operator
        name = func.name() if type(func) is OpOverload else func._qualified_op_name
        return name if FUSED.search(name) else None
    return None


class _FunctionWatch(TorchFunctionMode):
    def __init__(self, seen: set) -> None:
        super().__init__()
        self.seen = seen

    def __torch_function__(self, func, types, args=(), kwargs=None):
        route = torch_route(func)
        if route is not None:
            self.seen.add(route)  # recorded before the call, so a call that then fails counts too
        return func(*args, **(kwargs or {}))


class Watch:
    """`with Watch() as watch:` around student code; then watch.fused (names) and watch.intact."""

    def __init__(self) -> None:
        self.fused: set[str] = set()
        self.intact = True
        self._function = _FunctionWatch(self.fused)

    def __enter__(self) -> "Watch":
        forbid.REACHED.clear()
        self._function.__enter__()
        return self

    def _still_on(self) -> bool:
        functions = [torch._C._get_function_stack_at(i) for i in range(torch._C._len_torch_function_stack())]
        return self._function in functions

    def __exit__(self, *exc) -> None:
        self.intact = self._still_on()
        try:
            self._function.__exit__(None, None, None)
        except Exception:  # noqa: BLE001 - the student's code already took it off the stack
            self.intact = False

    def report(self) -> dict:
        return {"fused": sorted(self.fused | forbid.REACHED), "watch": "on" if self.intact else "off"}


def _warm_up() -> None:
    """Pay for the modes' first use once, in the warm server, not in every student's child."""
    with Watch():
        x = torch.ones(2, 2, requires_grad=True)
        seeded.backward(torch.softmax(x * 2, -1), torch.ones(2, 2))  # as the harness runs a backward pass


_warm_up()
