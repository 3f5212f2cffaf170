"""Did the student's code change its inputs in place? Judged here, in the trusted parent.

The parent knows what it sent: the tensors of the request, or the seeded inputs the child rebuilds from a seed
(sandbox/child/inputs.py), in the layout the child hands over. After the calls (those of a run request; each
judged call of a sequence, grading/calls.py, tensors a `reuse` step refilled in place included) the child reports
what each of those tensors then holds (sandbox/child/wire.py: dtype, shape and a SHA-256 of the values, read
with functions bound before any student code ran). The verdict compares that report with the fingerprint of the
parent's own copy, so code that patches `Tensor.clone`, `torch.clone`, `torch.equal` or pushes a torch-function
mode at import hides nothing: no comparison the child makes decides anything. A report that is missing or
malformed is the student's failure (a file that rewired the grader's own process), never a pass.
"""
from __future__ import annotations

import torch

from ..sandbox.child import inputs, wire

_SEEDED: dict[tuple, list] = {}  # fingerprints of seeded inputs (the saturation experiment's are large), per spec


class Unconfirmed(Exception):
    """The child's report of its inputs after the call is missing or malformed."""


def _as_sent(value: object) -> object:
    """The tensor the child rebuilds from this argument (wire.py's dtype rule, seeded inputs made), or the value."""
    if isinstance(value, dict) and set(value) == {"$randn"}:
        return inputs.materialize(value)
    if isinstance(value, torch.Tensor):
        return torch.from_numpy(wire.values(value)[1].copy())
    return value


def _expected(value: object, layout: str | None) -> list | None:
    key = None
    if isinstance(value, dict) and set(value) == {"$randn"}:
        spec = value["$randn"]
        key = (repr(sorted(spec.items())), layout)
        if key in _SEEDED:
            return _SEEDED[key]
    found = wire.fingerprint(inputs.laid_out(_as_sent(value), layout))
    if key is not None and len(_SEEDED) < 256:
        _SEEDED[key] = found
    return found


def calls_of(request: dict) -> list[tuple[list, dict, dict]]:
    """(args, kwargs, layouts) of every call of a run request, the first one and each of `more`."""
    calls = [(request.get("args") or [], request.get("kwargs") or {})]
    calls += [(extra.get("args") or [], extra.get("kwargs") or {}) for extra in request.get("more") or []]
    layouts = request.get("layouts") or {}
    return [(args, kwargs, layouts.get(str(n)) or {}) for n, (args, kwargs) in enumerate(calls)]


def changed_inputs(request: dict, after: object) -> list[list[str]]:
    """For each call, the names of the inputs whose values, dtype or shape differ from what was sent
    ("argument 2", "argument mask"). Raises Unconfirmed when `after` is not a report of every call."""
    calls = calls_of(request)
    if not isinstance(after, list) or len(after) != len(calls):
        raise Unconfirmed("no report of the inputs after the call")
    return [changed_in_call(args, kwargs, layouts, report) for (args, kwargs, layouts), report in zip(calls, after)]


def changed_in_call(args: list, kwargs: dict, layouts: dict, report: object) -> list[str]:
    """The names of one call's inputs whose values, dtype or shape differ from what was sent, by the child's
    report of them after the call (wire.fingerprints); `layouts` {"argument index": layout} as sent. Raises
    Unconfirmed when the report is malformed."""
    if not isinstance(report, dict) or not isinstance(report.get("args"), list) \
            or not isinstance(report.get("kwargs"), dict) or len(report["args"]) != len(args) \
            or set(report["kwargs"]) != set(map(str, kwargs)):
        raise Unconfirmed("a malformed report of the inputs after the call")
    names = []
    for index, value in enumerate(args):
        if _expected(value, layouts.get(str(index))) != report["args"][index]:
            names.append(f"argument {index + 1}")
    for name, value in kwargs.items():
        if _expected(value, None) != report["kwargs"][str(name)]:
            names.append(f"argument {name}")
    return names
