"""Comparisons that fail with a message a student can act on (shape, values, masks, sums). A message states the
symptom exactly (diagnosis/symptoms.py: which rows, keys or entries, by how much); why it happened is for the
diagnosis to say, and only when it is proven."""
from __future__ import annotations

from contextlib import contextmanager

import torch

from ..diagnosis import structural, symptoms
from ..diagnosis.compare import gap
from . import tolerance
from .student import StudentFault, as_tensor


def shape(value: object, expected: tuple, what: str, hint: str = "") -> torch.Tensor:
    tensor = as_tensor(value, what)
    if tuple(tensor.shape) != tuple(expected):
        raise StudentFault(f"{what} has shape {tuple(tensor.shape)}, expected {tuple(expected)}. {hint}".strip())
    if not tensor.is_floating_point() and tensor.dtype != torch.bool:
        raise StudentFault(f"{what} has dtype {tensor.dtype}; expected floating point numbers.")
    return tensor


def mask(value: object, expected: tuple, what: str, hint: str = "") -> torch.Tensor:
    """A mask a student built, as the handout allows it: bool, or 0/1 numbers of any dtype (int, float). Returns
    it as bool (True = allowed). Other values (a -inf/0 float mask to add) do not follow the course's convention."""
    tensor = as_tensor(value, what)
    if tuple(tensor.shape) != tuple(expected):
        raise StudentFault(f"{what} has shape {tuple(tensor.shape)}, expected {tuple(expected)}. {hint}".strip())
    if tensor.is_complex() or (tensor.dtype != torch.bool and not ((tensor == 0) | (tensor == 1)).all()):
        raise StudentFault(f"{what} holds values other than 0/1 or True/False; this course's masks are 1/True for an "
                           "allowed key and 0/False for a forbidden one.")
    return tensor != 0


def close(value: object, expected: torch.Tensor, what: str, hint: str = "",
          rtol: float = 1e-4, atol: float = 1e-5) -> torch.Tensor:
    """Compare in float64 against the reference; NaN where the reference has none is wrong."""
    tensor = shape(value, tuple(expected.shape), what)
    got, want = tensor.double(), expected.double()
    if not torch.isfinite(got).all() and torch.isfinite(want).all():
        raise StudentFault(f"{symptoms.describe(tensor, want, what)} {hint}".strip())
    if not torch.allclose(got, want, rtol=rtol, atol=atol, equal_nan=True):
        raise symptoms.fault(StudentFault, f"{symptoms.describe(tensor, want, what, rtol=rtol, atol=atol)} {hint}",
                             f"tolerance rtol={rtol:g}, atol={atol:g}")
    return tensor


def within(value: object, reference: tuple, what: str, hint: str = "") -> torch.Tensor:
    """Compare with a (float64 reference, float32 error bound) pair from grading/tolerance.py."""
    want, bound = reference
    tensor = shape(value, tuple(want.shape), what)
    if not torch.isfinite(tensor).all() and torch.isfinite(want).all():
        raise StudentFault(f"{symptoms.describe(tensor, want, what)} {hint}".strip())
    if tolerance.inside(tensor, want, bound):
        return tensor
    ok, error, allowed = tolerance.within(tensor, want, bound)
    if not ok:
        slack = tolerance.SAFETY * bound.double().max().item()
        raise symptoms.fault(StudentFault, f"{symptoms.describe(tensor, want, what, rtol=0.0, atol=slack)} {hint}",
                             f"float32 rounding explains at most {allowed:.3g} at the largest difference")
    return tensor


def gradient_within(value: object, reference: tuple, what: str, hint: str = "") -> torch.Tensor:
    """`within` for a gradient. The fault says which gradient is wrong; whether the backward pass is what is
    wrong is for the diagnosis to say (grading/diagnose.py: only when the call's result itself is right)."""
    try:
        return within(value, reference, what, hint)
    except StudentFault as fault:
        fault.wrong_gradient = what
        raise


def same_each_time(outputs: tuple, what: str) -> None:
    """Identical calls must give identical results: anything else is randomness (dropout left on,
    random numbers) and a grader cannot check a random answer."""
    first, *rest = [o if isinstance(o, (list, tuple)) else [o] for o in outputs]
    for again in rest:
        if len(again) != len(first) or not all(
                isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and a.shape == b.shape
                and torch.equal(a.double().nan_to_num(), b.double().nan_to_num()) for a, b in zip(first, again)):
            raise StudentFault(f"{what} gave different results for the same inputs; a grader can only check an answer "
                               "that is the same each time (for a layer: in eval() mode).",
                               diagnoses=(structural.random_result(what, gap(again, first)),))


def rows_sum_to_one(weights: torch.Tensor, what: str, hint: str = "", reference: tuple | None = None) -> None:
    """Each row sums to 1, up to float32 rounding: 1e-5, or what the reference's bound allows (scores far
    from zero make every weight uncertain by about |score| * 2^-24)."""
    sums = weights.double().sum(-1)
    atol = 1e-5
    if reference is not None:
        atol = max(atol, tolerance.SAFETY * reference[1].sum(-1).max().item() + tolerance.gamma(weights.shape[-1]))
    if not torch.allclose(sums, torch.ones_like(sums), atol=atol, rtol=0):
        raise StudentFault(f"{what}: {symptoms.row_sums(weights.double(), atol)} {hint}".strip())


def masked_are_zero(weights: torch.Tensor, allowed: torch.Tensor, what: str, hint: str = "",
                    limit: float = 0.0) -> None:
    """The kit's one masking rule: a masked key ends with weight exactly 0 for any allowed scores in the
    documented range (|score| <= 1e4). -inf, finfo.min, -1e9 and -1e6 fills do that; -30 does not."""
    if tuple(weights.shape) != tuple(allowed.shape):
        raise StudentFault(f"{what}: the weights have shape {tuple(weights.shape)}, expected {tuple(allowed.shape)}.")
    leaked = weights.double().masked_fill(allowed.bool(), 0).abs().max().item()
    if not leaked <= limit:
        raise StudentFault(f"{what}: {symptoms.masked_leaks(weights.double(), allowed, limit)} {hint}".strip())


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


@contextmanager
def paid_with_result(held: str, judged_by: str):
    """A property only the student's process can report (its inputs left unchanged, its parameters) earns its
    points together with a right result, since a report alone could be forged. When the result is what fails,
    the message says so: the property held, the result is what is wrong, and which checks judge the result (the
    diagnosis, if any, names the mistake in it)."""
    try:
        yield
    except StudentFault as fault:
        if fault.attempted:
            fault.args = (f"{held}, but this check pays only together with a right result, and the result is "
                          f"wrong ({judged_by} judge it): {fault}",)
        raise
