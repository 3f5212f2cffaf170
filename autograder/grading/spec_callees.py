"""One mistake, one charge (docs/grading.md) for a declared spec whose reference calls another exercise of its
master: a layer built on the student's own `split_heads`, say. When the caller's check fails, the trusted
reference of the caller is run here, in the grading process, with each call of that other exercise answered by the
student's own function in the sandbox (its inputs and answers cross as plain tensors; the reference never runs in
the student's process, nor the student's code in this one). The failure is the callee's outcome, raised as
ExplainedElsewhere naming the callee's question, when on every probe of the check the student's caller does
exactly what that reference does (the same answer to float32 rounding, or an error of the same type), and on one
probe at least that differs from the reference's own result. The plugin then charges the check only where the
callee's question lost no points. Asked only after a failure: a passing check costs nothing here.
"""
from __future__ import annotations

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
        if _explains(declared, student, group, callee, outcomes):
            return ExplainedElsewhere(
                f"{fault} The reference {declared.spec.exercise}, calling your own {callee} in place of its own, "
                f"does exactly what yours does on every call of this check: the mistake is in your own {callee}, "
                f"and it is charged in the question of {callee}.", questions=(callee,))
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
    return (text or "failed").split(":", 1)[0].strip()


def _explains(declared, student, group: str, callee: str, outcomes: list) -> bool:
    def theirs(*args, **kwargs):
        try:
            reply = student.run(callee, *args, kwargs=kwargs or None, inputs_may_change=True, record=False)
        except StudentFault as failure:
            raise _CalleeFailed(_error_type(raised_error(failure))) from None
        return reply.output

    references = declared.reference_results(group)   # the reference's own, before its callee is stood in for
    own = declared.namespace[callee]
    declared.namespace[callee] = theirs
    differs = False
    try:
        for probe, (kind, got), expected in zip(declared.groups[group], outcomes, references):
            try:
                carried = declared.run(declared.reference, probe, torch.float32)
            except _CalleeFailed as failed:
                outcome = ("error", str(failed))
            except Exception as error:  # noqa: BLE001 - the reference cannot go on with the callee's answer
                outcome = ("error", type(error).__name__)
            else:
                outcome = ("answer", carried)
            if outcome[0] != kind:
                return False
            if kind == "error":
                if outcome[1] != got:
                    return False
                differs = True
                continue
            if not agree(got, carried).same:
                return False
            want = [w for w, _ in expected]
            differs = differs or not agree(carried if len(want) > 1 else [carried], want).same
    finally:
        declared.namespace[callee] = own
    return differs
