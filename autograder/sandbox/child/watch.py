"""Watches what runs while a student's function runs: did a fused attention kernel run?

The exercises ask students to build attention by hand, so the grader judges by what executes, not
by names in the source: a student's own helper may be called `scaled_dot_product_attention`, and
an alias, `getattr(F, "scaled_dot_" + "product_attention")` or `torch.ops.aten._scaled_dot_...`
still reaches the same kernel. Two layers, both active around the call (and its backward pass):

- a TorchFunctionMode sees every torch-level call (F.scaled_dot_product_attention however it was
  reached, torch.ops.aten.* overloads, F.multi_head_attention_forward that nn.MultiheadAttention
  and the nn.Transformer* layers use, flex_attention);
- a TorchDispatchMode sees the ATen kernels that actually run (the fused CPU kernels), in case the
  torch-level layer was bypassed.

The watch is evidence, not the defence: forbid.py has already switched every such route off in the
fork server, so a fused kernel raises whatever thread, name or trick reaches it. The watch says which
route a failing call took (a refused call is recorded by forbid.py too), for the feedback and for the
instructor. It runs in the student's process, so its report is the student's word like every other
reply: the parent treats a missing or broken watch as a failure, and a static check of the source
flags deliberate attempts to switch it or the refusals off.
"""
from __future__ import annotations

import re

import forbid
import seeded
import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode, _get_current_dispatch_mode_stack

FUSED = re.compile(r"scaled_dot_product|multi_head_attention|flex_attention|transformer_encoder_layer"
                   r"|_native_multi_head|_flash_attention|_efficient_attention|cudnn_attention|_fused_sdp"
                   # the math path of scaled_dot_product_attention, once decomposed, is plain bmm and softmax,
                   # except for this one kernel, which only it uses (F.softmax is aten._softmax)
                   r"|_safe_softmax")


class _FunctionWatch(TorchFunctionMode):
    def __init__(self, seen: set) -> None:
        super().__init__()
        self.seen = seen

    def __torch_function__(self, func, types, args=(), kwargs=None):
        name = getattr(func, "__name__", None) or str(func)
        if FUSED.search(name):
            self.seen.add(name)  # recorded before the call, so a call that then fails counts too
        return func(*args, **(kwargs or {}))


class _DispatchWatch(TorchDispatchMode):
    @classmethod
    def _should_skip_dynamo(cls) -> bool:
        # torch otherwise wraps __torch_dispatch__ in torch._dynamo.disable, whose first call imports torch._dynamo
        # and sympy (about a third of `import torch`, in every fork server); a child compiles nothing (no threads)
        return False

    def __init__(self, seen: set) -> None:
        super().__init__()
        self.seen = seen
        self.bypassed = False

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        name = str(func)
        if FUSED.search(name):
            self.seen.add(name)
        if torch._C._is_torch_function_all_disabled():
            # torch._C.DisableTorchFunction() hides every torch-level call from the function watch;
            # nothing in the exercises (or in PyTorch's eager code they use) needs it.
            self.bypassed = True
        return func(*args, **(kwargs or {}))


class Watch:
    """`with Watch() as watch:` around student code; then watch.fused (names) and watch.intact."""

    def __init__(self) -> None:
        self.fused: set[str] = set()
        self.intact = True
        self._function = _FunctionWatch(self.fused)
        self._dispatch = _DispatchWatch(self.fused)

    def __enter__(self) -> "Watch":
        forbid.REACHED.clear()
        self._function.__enter__()
        self._dispatch.__enter__()
        return self

    def _still_on(self) -> bool:
        functions = [torch._C._get_function_stack_at(i) for i in range(torch._C._len_torch_function_stack())]
        return self._function in functions and self._dispatch in _get_current_dispatch_mode_stack()

    def __exit__(self, *exc) -> None:
        self.intact = self._still_on() and not self._dispatch.bypassed
        for mode in (self._dispatch, self._function):
            try:
                mode.__exit__(None, None, None)
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
