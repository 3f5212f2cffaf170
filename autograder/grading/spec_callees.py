"""One mistake, one charge (docs/grading.md) for a declared spec whose reference calls another exercise of its
master: a layer built on the student's own `split_heads`, say. When the caller's check fails, the trusted
reference of the caller is run here, in the grading process, with each call of that other exercise answered by the
student's own function in the sandbox (its inputs and answers cross as plain tensors; the reference never runs in
the student's process, nor the student's code in this one). The failure is the callee's outcome, raised as
ExplainedElsewhere naming the callee's question, when on every probe of the check the student's caller does
exactly what that reference does (the same answer to float32 rounding, or an error of the same type), on one
probe at least that differs from the reference's own result; and the caller answered, so, somewhere in its
checks (a caller that only ever raises was not judged at all, as with a stub: grading/callees.py's rule). The plugin then charges the check only where the
callee's question lost no points. Asked only after a failure: a passing check costs nothing here.
"""
from __future__ import annotations

from contextlib import contextmanager

import torch

from ..diagnosis.compare import agree
from .callees import raised_error
from .faults import ExplainedElsewhere, NotAttempted, StudentFault


class _CalleeFailed(Exception):
    """The student's callee raised (or could not be run) on what the reference handed it."""


def callee_explained(declared, student, group: str, fault: StudentFault) -> StudentFault:
    """`fault` (a failed check of `declared` on `group`), or the ExplainedElsewhere naming the callee whose own
    outcome the caller's failure is."""
    if not fault.attempted or isinstance(fault, ExplainedElsewhere) or not declared.callees:
        return fault
    try:
        outcomes = [_outcome_of_student(student, request) for request in declared.requests(group)]
    except NotAttempted:
        return fault
    for callee in declared.callees:
        with _stood_in(declared, student, callee):
            kinds = _explains(declared, group, outcomes)
            if kinds is not None and _answered(declared, student, group, outcomes, kinds):
                return ExplainedElsewhere(
                    f"{fault} The reference {declared.spec.exercise}, calling your own {callee} in place of its own, "
                    f"does exactly what yours does on every call of this check: the mistake is in your own "
                    f"{callee}, and it is charged in the question of {callee}.", questions=(callee,))
    return fault


def _outcome_of_student(student, request: dict) -> tuple[str, object]:
    try:
        reply = student.runs([request], inputs_may_change=True, record=False)[0]
    except NotAttempted:
        raise
    except StudentFault as failure:
        return "error", _error_type(raised_error(failure))
    return "answer", reply.output


def _error_type(text: str | None) -> str:
    """"RuntimeError: The size of tensor a (4) must match ...": an error's type and message, first line only."""
    return (text or "failed").split("\n", 1)[0].strip()[:300]


@contextmanager
def _stood_in(declared, student, callee: str):
    """The reference's namespace with `callee` answered by the student's own, in the sandbox."""
    def theirs(*args, **kwargs):
        try:
            reply = student.run(callee, *args, kwargs=kwargs or None, inputs_may_change=True, record=False)
        except StudentFault as failure:
            raise _CalleeFailed(_error_type(raised_error(failure))) from None
        if not (isinstance(reply.output, torch.Tensor) and reply.output.is_floating_point()):
            raise _CalleeFailed(f"{callee} answered no tensor")   # what a correct caller carries on is a float tensor: else no evidence
        return reply.output
    for group in declared.groups:
        declared.reference_results(group)   # the reference's own results, before its callee is stood in for
    own = declared.namespace[callee]
    declared.namespace[callee] = theirs
    try:
        yield
    finally:
        declared.namespace[callee] = own


def _carried(declared, probe) -> tuple[str, object]:
    """What the reference does on `probe` with the student's callee in its namespace."""
    try:
        return "answer", declared.run(declared.reference, probe, torch.float32)
    except _CalleeFailed as failed:
        return "callee", str(failed)
    except Exception as error:  # noqa: BLE001 - the reference cannot go on with the callee's answer
        return "error", _error_type(f"{type(error).__name__}: {error}")


def _explains(declared, group: str, outcomes: list) -> list[str] | None:
    """What the carried reference did on each probe of `group` ("answer", "error": its own code raised on the
    callee's answer, "callee": the callee raised), when the student's caller did the same on every one (the same
    answer to float32 rounding, the same error, type and message) and that differs from the reference's own result
    on one at least; else None."""
    differs, kinds = False, []
    for probe, (kind, got), expected in zip(declared.groups[group], outcomes, declared.reference_results(group)):
        carried = _carried(declared, probe)
        if kind == "answer":
            if carried[0] != "answer" or not agree(got, carried[1]).same:
                return None
            want = [w for w, _ in expected]
            differs = differs or not agree(carried[1] if len(want) > 1 else [carried[1]], want).same
        elif carried[0] == "answer" or carried[1] != got:
            return None
        else:
            differs = True
        kinds.append(carried[0])
    return kinds if differs else None


def _answered(declared, student, group: str, outcomes: list, kinds: list[str]) -> bool:
    """The caller was judged: it answered (as the carried reference does) on some probe of this check, or of
    another of its checks, or else it raised, on every call, exactly the error (type and message) that the
    reference raises on the student's callee's answers (a caller over a callee that itself raises, or answers no
    tensor, and that never answers, is not judged, as over a stub)."""
    if any(kind == "answer" for kind, _ in outcomes):
        return True
    for other in declared.groups:
        if other == group:
            continue
        for probe, request in zip(declared.groups[other], declared.requests(other)):
            carried = _carried(declared, probe)
            if carried[0] != "answer":
                continue
            kind, got = _outcome_of_student(student, request)
            if kind == "answer" and agree(got, carried[1]).same:
                return True
    return all(kind == "error" for kind in kinds)
