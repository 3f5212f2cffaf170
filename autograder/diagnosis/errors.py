"""An exception raised by student code, said in the lesson's words where the evidence proves its cause.

The child reports the exception's type, message and the student's own source lines (harness.describe_error).
A rule names a cause only when both agree: the message says what failed (a matrix product whose sizes do not
line up, masked_fill given a non-bool mask, a lazy parameter read too early) and the student's line that
raised shows the construct that makes it fail (`.T`, `~`, `.weight`). Anything else is shown as it is, with
the student's line, and no guess.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..results import Diagnosis
from .catalog import MISTAKES

LINE = re.compile(r"^(?P<place>.*?) line (?P<number>\d+): (?P<code>.*)$")
SHAPE_ERROR = re.compile(r"cannot be multiplied|must match the size of tensor|Expected size for first two "
                         r"dimensions of batch2|size mismatch|shapes cannot be")
MAT_SHAPES = re.compile(r"mat1 and mat2 shapes cannot be multiplied \((\d+)x(\d+) and (\d+)x(\d+)\)")
TRANSPOSE_3D = re.compile(r"(?<!weight)\.T(?![A-Za-z0-9_])")
WEIGHT_UNTRANSPOSED = re.compile(r"\.weight(?!\s*\.\s*(T|mT|t\(|transpose))")
IN_PLACE = re.compile(r"^(?!self\.)[A-Za-z_]\w*(\s*[-+*/@]=|\[[^]]*\]\s*=(?!=))"   # Q /= ..., x[m] = ...
                      r"|(?<![\w.])(?!self\.)[A-Za-z_]\w*\.\w+_\(")                   # scores.masked_fill_(
CALLS_A_LAYER = re.compile(r"self\.\w+\(")
UNINITIALISED = "uninitialized parameter"


@dataclass(frozen=True)
class Translation:
    text: str                              # what the student reads: what failed, where, and why if known
    findings: tuple[Diagnosis, ...] = ()     # the mistakes the evidence proves


def student_lines(error: dict) -> list[tuple[str, str]]:
    """(place, code) of the student's frames, innermost last."""
    found = []
    where = error.get("where")
    for entry in where if isinstance(where, list) else []:  # the child's word: any shape may arrive
        match = LINE.match(entry) if isinstance(entry, str) else None
        if match:
            found.append((f"{match['place']} line {match['number']}", match["code"].strip()))
    return found


def translate(what: str, error: dict) -> Translation:
    kind, message = str(error.get("type", "Error")), str(error.get("message", ""))
    lines = student_lines(error)
    shown = f"{what} raised {kind}: {message[:500]}"
    if lines:
        shown += "\n  at " + "; ".join(f"{place}: {code}" for place, code in lines[-2:])
    for rule in RULES:
        found = rule(kind, message, lines)
        if found:
            mistake, why = found
            if mistake is None:  # a plain statement of what failed, no cause
                return Translation(f"{shown}\n{why}")
            code = lines[-1][1] if lines else ""
            evidence = f"{kind} \"{message[:160]}\"" + (f" on your line `{code}`" if code else "")
            return Translation(f"{shown}\n{why}", (Diagnosis(mistake, MISTAKES[mistake], evidence + "."),))
    return Translation(shown)


# --- rules: (type, message, student lines) -> (mistake id or None, explanation) or None ---------------

def transpose_on_3d(kind: str, message: str, lines: list) -> tuple[str, str] | None:
    if kind == "RuntimeError" and SHAPE_ERROR.search(message) and lines and TRANSPOSE_3D.search(lines[-1][1]):
        return "transpose-all-dims", (
            "This line uses `.T`, and on a 3-D tensor `.T` reverses all three dimensions ((B, T, d) becomes "
            "(d, T, B)), so the matrix product no longer lines up. Swap only the last two: .transpose(-2, -1) or .mT.")
    return None


def bitwise_not_mask(kind: str, message: str, lines: list) -> tuple[str, str] | None:
    failed = ("operator.invert" in message or "bitwise_not" in message
              or (kind == "RuntimeError" and "only supports boolean masks" in message))
    if failed and lines and "~" in lines[-1][1]:
        return "mask-bitwise-not", (
            "This line negates the mask with `~`, which flips the bits of a 0/1 int mask (giving -2/-1, not a "
            "bool mask) and fails on a float mask. The mask may be bool, 0/1 int or 0/1 float: compare instead, "
            "masked_fill(mask == 0, float('-inf')).")
    return None


def non_bool_mask(kind: str, message: str, lines: list) -> tuple[str, str] | None:
    if kind == "RuntimeError" and "only supports boolean masks" in message:
        return "mask-needs-bool", (
            "masked_fill was given the 0/1 mask itself, and it accepts only a bool mask; the mask may be bool, "
            "0/1 int or 0/1 float. Build the condition from it: masked_fill(mask == 0, float('-inf')).")
    return None


def lazy_parameters(kind: str, message: str, lines: list) -> tuple[str, str] | None:
    if UNINITIALISED in message:
        return "lazy-parameters", (
            "A lazy module (such as nn.LazyLinear) has no weights until its first forward pass, so they could not "
            "be read or set. The sizes are known from __init__: use nn.Linear(in_features, out_features, bias=False).")
    return None


def weight_used_untransposed(kind: str, message: str, lines: list) -> tuple[str, str] | None:
    shapes = MAT_SHAPES.search(message)
    if not (shapes and lines and WEIGHT_UNTRANSPOSED.search(lines[-1][1])):
        return None
    rows, inner, weight_rows, weight_cols = map(int, shapes.groups())
    if inner != weight_cols or weight_rows == weight_cols:
        return None  # the weight lines up transposed: the (out, in) matrix was used as (in, out)
    return "w-transposed", (
        f"This line multiplies vectors of size {inner} by a weight of shape ({weight_rows}, {weight_cols}). "
        "nn.Linear stores its weight as (out_features, in_features), so x @ W needs W transposed: "
        "x @ self.W.weight.T, or simply self.W(x).")


def input_changed_in_place(kind: str, message: str, lines: list) -> tuple[str, str] | None:
    if "leaf Variable that requires grad is being used in an in-place operation" not in message or not lines:
        return None
    if not IN_PLACE.search(lines[-1][1]):
        return None  # e.g. a parameter (self.W...) changed in place: not an input
    return "inputs-modified", (
        "This line changes a tensor that was passed in, in place; for the gradient check the inputs require "
        "grad, and PyTorch refuses. Compute a new tensor instead (Q = Q / ..., masked_fill without the _).")


def numpy_round_trip(kind: str, message: str, lines: list) -> tuple[str, str] | None:
    if "Can't call numpy() on Tensor that requires grad" not in message:
        return None
    return "graph-cut", (
        "This line turns a tensor that gradients must flow through into a NumPy array; autograd cannot follow a "
        "computation done in NumPy, so no gradient would reach the inputs. Compute with torch operations.")


def linear_input_size(kind: str, message: str, lines: list) -> tuple[None, str] | None:
    shapes = MAT_SHAPES.search(message)
    if not (shapes and lines and CALLS_A_LAYER.search(lines[-1][1])):
        return None
    _, given, expected, _ = map(int, shapes.groups())
    return None, (f"A linear map called on this line takes vectors of size {expected} (its in_features) and was given "
                  f"vectors of size {given}.")


def thread_or_process_refused(kind: str, message: str, lines: list) -> tuple[None, str] | None:
    """The sandbox refuses new threads and processes (docs/isolation.md); these are the errors Python gives."""
    refused = (kind == "RuntimeError" and "can't start new thread" in message) or (
        kind in ("PermissionError", "OSError", "BlockingIOError") and "Operation not permitted" in message
        and any(re.search(r"fork|Process|Pool|subprocess|Popen|spawn|Executor", code) for _, code in lines))
    if not refused:
        return None
    return None, ("While grading, your code runs in one thread of one process: starting a thread or a process is "
                  "refused. Compute the result in the function itself (nothing in the exercises needs a thread).")


RULES = [thread_or_process_refused, transpose_on_3d, bitwise_not_mask, non_bool_mask, lazy_parameters, weight_used_untransposed,
         input_changed_in_place, numpy_round_trip, linear_input_size]
