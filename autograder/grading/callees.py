"""One mistake, one charge between a function and a graded function it calls (README).

The handouts have students build on their own functions: `attention_weights` on `apply_mask`, `scaled_dot_scores`
often on `dot_scores`. A mistake in the callee then shows in the caller's checks too. When a caller's judged call
fails, the callee is asked, alone and in one round trip, for its own outcome on the arguments the caller would hand
it (`Callee.args`); the failure is the callee's mistake, raised as ExplainedElsewhere naming the callee's question,
when the caller's outcome is exactly what that outcome gives:

- a wrong answer: the callee's answer is wrong by its own question's judge, and carried through the rest of a
  correct caller (`Callee.then`) it equals the caller's answer (compare.agree: float32 rounding apart);
- an error: the callee raises the same error (type and message) on those arguments, and the caller answered
  earlier calls of the sequence (a caller that raised before answering anything was not judged at all, as with a
  stub: a callee that always raises must not earn its caller more than an unwritten callee does);
- inputs changed in place: the callee changes the same inputs to the same values (the parent's digests of what
  each input holds after the call, grading/integrity.py; nothing the child reports about itself decides).

The plugin then charges the check only where the callee's question lost no points (faults.ExplainedElsewhere).
A caller with a mistake of its own (it passes the callee other arguments, or does something else with its answer)
gives another outcome, and is charged. Asked only after a failure: a passing check costs nothing here.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import torch

from ..diagnosis.compare import agree
from .calls import Answers, Call, Judge, made, send_sequence
from .faults import ExplainedElsewhere, StudentFault


@dataclass(frozen=True)
class Callee:
    """`name` (a graded function, its own question) as a caller uses it: the caller's answer is
    `then(callee's answer, the caller's arguments)`, the callee called on `args(the caller's arguments)`;
    `judge` is the callee's own question's verdict on its answer; `applies(call)`: whether the caller calls it."""
    name: str
    judge: Judge
    then: Callable[[object, tuple], object]
    args: Callable[[tuple], tuple] = lambda args: args
    applies: Callable[[Call], bool] = lambda call: True


def explained(student, call: Call, fault: StudentFault, callees: tuple[Callee, ...], output: object = None,
              answers: Answers | None = None, number: int | None = None) -> StudentFault:
    """`fault` (the caller's, on `call`), or the ExplainedElsewhere that names the callee explaining it. What the
    caller did is given by `output` (its answer, judged wrong), or by `answers` and the call's `number` in them (it
    raised: answers.error; it changed its inputs: answers.after[number])."""
    if not fault.attempted or isinstance(fault, ExplainedElsewhere):
        return fault
    for callee in callees:
        if not callee.applies(call):
            continue
        try:
            why = _explains(student, call, callee, output, answers, number)
        except StudentFault:  # the callee crashed or hung where the caller did not: not this explanation
            why = None
        if why:
            return ExplainedElsewhere(f"{fault} {why}", questions=(callee.name,))
    return fault


def _explains(student, call: Call, callee: Callee, output, answers: Answers | None, number: int | None) -> str | None:
    args = tuple(made(a) for a in call.args)
    handed = callee.args(args)
    sent = (Call(callee.name, args, layouts=call.layouts, grad_args=call.grad_args) if handed is args
            else Call(callee.name, handed))  # the very inputs, laid out and requiring a gradient as the caller's
    if answers is None:  # a wrong answer
        mine = send_sequence(student, [sent])
        answer = mine.outputs[0] if len(mine.outputs) == 1 and mine.failed is None else None  # it returned
        if not (isinstance(answer, torch.Tensor) and answer.is_floating_point()):
            return None  # what a correct caller would carry on is a float tensor; anything else explains nothing
        try:
            callee.judge(answer, sent.args, sent.describe())
        except StudentFault:
            if agree(output, callee.then(answer, args)).same:
                return (f"Your {call.target} gives exactly what your own {callee.name} gives on these inputs, carried "
                        f"on as {call.target} should, and that {callee.name} is wrong there.")
        return None
    mine = send_sequence(student, [sent])
    if answers.error is not None and number == answers.call:  # the caller raised
        if not answers.outputs:
            # ... before answering anything: nothing of the caller was judged, whatever its callee does (as with a
            # stub; a callee that always raises must not earn its caller more than an unwritten callee does).
            return None
        error = mine.error or {}
        if (error.get("type"), error.get("message")) == (answers.error.get("type"), answers.error.get("message")):
            return f"Your own {callee.name} raises the same error on these inputs."
        return None
    before, after = answers.after[number], mine.after[0] if mine.after else None  # the caller changed its inputs
    if mine.changed and after is not None and sent.args is args and after == before:
        return f"Your own {callee.name} changes these inputs in the same way when called on them."
    return None


def explained_gradients(student, call: Call, seed: torch.Tensor, grads: dict | None, fault: StudentFault,
                        callees: tuple[Callee, ...]) -> StudentFault:
    """`fault` (a wrong or missing gradient of the caller's `call`, backward from `seed`; `grads` {"argument index":
    gradient} as the caller gave them, None when its backward pass raised), or the ExplainedElsewhere naming the callee whose own gradients, carried
    back through the rest of a correct caller (the gradient of `Callee.then` at the callee's answer), are exactly
    the caller's. Two round trips, only after a failure."""
    if not fault.attempted or isinstance(fault, ExplainedElsewhere):
        return fault
    for callee in callees:
        if callee.applies(call):
            try:
                why = _gradients_explain(student, call, seed, grads, callee, fault)
            except StudentFault:
                why = None
            if why:
                return ExplainedElsewhere(f"{fault} {why}", questions=(callee.name,))
    return fault


def raised_error(fault: StudentFault) -> str | None:
    """"RuntimeError: element 0 of tensors does not require grad ...": the error a failed call raised, without
    the call's description (a caller's and its callee's calls differ)."""
    text = str(fault)
    return text.split(" raised ", 1)[1].split("\n", 1)[0] if " raised " in text else None


def _gradients_explain(student, call: Call, seed: torch.Tensor, grads: dict | None, callee: Callee,
                       caller_fault: StudentFault) -> str | None:
    args = tuple(made(a) for a in call.args)
    if callee.args(args) is not args:
        return None  # a caller that hands the callee other tensors: their gradients are not followed here
    answer = student.run(callee.name, *args, inputs_may_change=True, record=False).output
    if not (isinstance(answer, torch.Tensor) and answer.is_floating_point()):
        return None
    if answer.shape == seed.shape:
        carried = answer.detach().double().requires_grad_(True)
        (inward,) = torch.autograd.grad(callee.then(carried, args), carried, seed.double())
    elif grads is None:
        inward = seed  # the caller's backward raised (a seed of the wrong shape?): does the callee's, alike?
    else:
        return None
    try:
        reply = student.run(callee.name, *args, grad_args=call.grad_args, backward={"grad": inward.float()},
                            inputs_may_change=True, record=False)
    except StudentFault as failure:  # the callee's backward pass fails: the caller's must have failed alike
        same = grads is None and raised_error(failure) == raised_error(caller_fault)
        return f"Your own {callee.name} fails the same way when its gradient is asked for." if same else None
    if grads is None:
        return None
    theirs = [reply.arg_grads.get(str(i)) for i in call.grad_args]
    mine = [grads.get(str(i)) for i in call.grad_args]
    if all(isinstance(g, torch.Tensor) for g in theirs) and agree(mine, theirs).same:
        return (f"Your {call.target}'s gradients are exactly those of your own {callee.name} carried back through "
                f"the rest of {call.target}, and those are wrong.")
    return None
