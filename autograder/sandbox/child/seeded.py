"""Backward passes seeded with an upstream gradient, without torch's first-call import of sympy.

`torch.autograd.backward(out, g)` (and `grad(out, xs, g)`) checks g's shape against out's with torch's
symbolic-shape machinery, imported on the first such call: torch.fx and sympy, about as long again as a
third of `import torch`, in every process that grades (the grader, the fork server, each child). The
gradient of the scalar sum(g * out) is the same vector-Jacobian product, bit for bit (its backward hands
1 * g, which is g, to out), and needs no such check. Where the check would have something to say (another
shape or dtype, a complex or nested tensor, not a tensor), torch's own call runs, with its own error.

Used on both sides of the sandbox: the child imports it as `seeded`, the grader as a module of the kit.
"""
from __future__ import annotations

import torch


def _plain(output, grad) -> bool:
    return (type(output) is torch.Tensor and type(grad) is torch.Tensor and output.shape == grad.shape
            and output.dtype == grad.dtype and output.dtype.is_floating_point and not output.is_nested
            and output.device == grad.device)


def backward(output, grad) -> None:
    """torch.autograd.backward(output, grad)."""
    if _plain(output, grad):
        torch.autograd.backward((output * grad).sum())
    else:
        torch.autograd.backward(output, grad)


def grad(output, inputs, seed, **options):
    """torch.autograd.grad(output, inputs, seed, **options)."""
    if _plain(output, seed):
        return torch.autograd.grad((output * seed).sum(), inputs, **options)
    return torch.autograd.grad(output, inputs, seed, **options)
