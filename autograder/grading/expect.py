"""Comparisons that fail with a message a student can act on (shape, values, masks, sums)."""
from __future__ import annotations

import torch

from .student import StudentFault, as_tensor


def shape(value: object, expected: tuple, what: str, hint: str = "") -> torch.Tensor:
    tensor = as_tensor(value, what)
    if tuple(tensor.shape) != tuple(expected):
        raise StudentFault(f"{what} has shape {tuple(tensor.shape)}, expected {tuple(expected)}. {hint}".strip())
    if not tensor.is_floating_point() and tensor.dtype != torch.bool:
        raise StudentFault(f"{what} has dtype {tensor.dtype}; expected floating point numbers.")
    return tensor


def close(value: object, expected: torch.Tensor, what: str, hint: str = "",
          rtol: float = 1e-4, atol: float = 1e-5) -> torch.Tensor:
    """Compare in float64 against the reference; NaN where the reference has none is wrong."""
    tensor = shape(value, tuple(expected.shape), what)
    got, want = tensor.double(), expected.double()
    if not torch.isfinite(got).all() and torch.isfinite(want).all():
        raise StudentFault(f"{what} contains NaN or infinity where the reference has none. {hint}".strip())
    if not torch.allclose(got, want, rtol=rtol, atol=atol, equal_nan=True):
        error = (got - want).abs().nan_to_num(float("inf")).max().item()
        raise StudentFault(f"{what} is wrong: largest difference from the reference is {error:.3g} "
                           f"(tolerance rtol={rtol:g}, atol={atol:g}). {hint}".strip())
    return tensor


def rows_sum_to_one(weights: torch.Tensor, what: str, hint: str = "", atol: float = 1e-5) -> None:
    sums = weights.double().sum(-1)
    if not torch.allclose(sums, torch.ones_like(sums), atol=atol):
        worst = (sums - 1).abs().max().item()
        raise StudentFault(f"{what}: each query's weights should sum to 1 over the keys (last dim), "
                           f"but a row is off by {worst:.3g}. {hint}".strip())


def masked_are_zero(weights: torch.Tensor, allowed: torch.Tensor, what: str, hint: str = "",
                    limit: float = 1e-6) -> None:
    if tuple(weights.shape) != tuple(allowed.shape):
        raise StudentFault(f"{what}: the weights have shape {tuple(weights.shape)}, expected {tuple(allowed.shape)}.")
    leaked = weights.double().masked_fill(allowed.bool(), 0).abs().max().item()
    if not leaked <= limit:
        raise StudentFault(f"{what}: forbidden (masked) keys still get weight {leaked:.3g} (must be <= {limit:g}). "
                           f"{hint}".strip())


def grad_present(grad: object, what: str, hint: str = "") -> torch.Tensor:
    """A gradient reached `what`. The fault says which gradient is missing; whether that is a cut graph is for
    the diagnosis to say (grading/diagnose.py: only when the call's result itself is right)."""
    if not isinstance(grad, torch.Tensor):
        fault = StudentFault(f"no gradient reached {what}. {hint}".strip())
    elif not torch.isfinite(grad).all() or grad.abs().max().item() == 0:
        fault = StudentFault(f"the gradient reaching {what} is zero or not finite. {hint}".strip())
    else:
        return grad
    fault.no_gradient = what
    raise fault
