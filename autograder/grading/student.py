"""What a hidden test holds: a handle on one student file running in the sandbox.

Every answer comes back as plain data; a failure inside student code becomes a StudentFault,
which the plugin scores as the student's failure. Anything else a test raises is a grader bug.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass, field, replace

import torch

from ..diagnosis import Diagnoser, structural
from ..diagnosis.registry import Scope
from ..sandbox import ChildFailure, ForkServer
from . import integrity
from .calls import Call, run_sequence
from .diagnose import explain_exception, record_call
from .faults import NotAttempted, StudentFault  # noqa: F401 - graders import them from here
from .memo import memoized
from .submissions import SourceFile


@dataclass(frozen=True)
class Reply:
    output: object
    arg_grads: dict = field(default_factory=dict)
    param_grads: dict = field(default_factory=dict)
    param_names: dict = field(default_factory=dict)
    inputs_changed: tuple = ()
    more: tuple = ()          # outputs of the further calls (request "more"), in order
    evidence: tuple = field(default=(), repr=False, compare=False)  # (request, reply) for the diagnosis (runs)

    @property
    def outputs(self) -> tuple:
        return (self.output, *self.more)


SEED_SHIFT = "ATTNKIT_SEED_SHIFT"  # the seed sweep (`make sweep`) moves every probe to other seeds


def probe_seed(seed: int) -> int:
    """The seed a probe really uses: its own, unless the seed sweep shifts every probe together."""
    return seed + 100_003 * int(os.environ.get(SEED_SHIFT, "0"))


def seeded_generator(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(probe_seed(seed))


@memoized
def seeded_inputs(seed: int, *shapes: tuple[int, ...]) -> list[torch.Tensor]:
    """Random float32 inputs made in the grader from a seed: the same for every student and every run."""
    generator = seeded_generator(seed)
    return [torch.randn(*shape, generator=generator) for shape in shapes]


def randn(*shape: int, seed: int) -> dict:
    """A random input that the sandbox rebuilds from its seed (see sandbox/child/inputs.py)."""
    return {"$randn": {"shape": list(shape), "seed": probe_seed(seed)}}


class StudentFile:
    """Loads the student's file into a sandboxed child on first use, and again after a crash."""

    def __init__(self, server: ForkServer, source: SourceFile) -> None:
        self.server = server
        self.source = source
        self.child = None
        self.load_errors: list[dict] = []
        self.fatal: str | None = source.problem
        self.output: list[str] = []
        self.deadline = time.monotonic() + server.config.limits.submission_seconds
        # every call and what came back, for explaining a failure, by this assignment's own targets alone
        self.diagnoser = Diagnoser(Scope(source.assignment))

    def _connect(self):
        if self.fatal:
            raise (NotAttempted if self.fatal == self.source.problem else StudentFault)(self.fatal)
        if self.child is not None and self.child.usable:
            return self.child
        limits = self.server.config.limits
        self.child = self.server.spawn(self.deadline)
        try:
            reply = self.child.request({"op": "load", "module": self.source.assignment,
                                        "filename": self.source.filename, "cells": list(self.source.cells)},
                                       limits.load_seconds)
        except ChildFailure as failure:
            self.fatal = f"running {self.source.filename} from top to bottom failed: {failure}"
            raise StudentFault(self.fatal) from None
        self._keep_output(reply)
        self.load_errors = clean_errors(reply.get("errors"))
        return self.child

    def _keep_output(self, reply: dict) -> None:
        text = reply.get("stdout")
        if isinstance(text, str) and text and sum(map(len, self.output)) < 16_384:
            self.output.append(text if len(text) <= 4096 else text[:4096] + "\n[... output cut]\n")

    def run(self, target: str, *args, kwargs: dict | None = None, init: tuple | None = None,
            params: dict | None = None, method: str | None = None, grad_args: tuple = (),
            backward: dict | None = None, check_inputs: bool = False, more: list | None = None,
            train: bool = False, layouts: dict | None = None, no_grad: bool = False,
            inputs_may_change: bool = False, non_leaf: bool = False, record: bool = True) -> Reply:
        """Call `target` (a function, or a class built with `init` and probed in eval() mode unless
        `train`) on args, then again on each (args, kwargs) pair of `more`, in the same process and on
        the same instance, under torch.no_grad() if `no_grad`. `layouts` {"call number": {"argument index": layout}} hands an argument to the
        student in another memory layout (sandbox/child/inputs.py: laid_out), call 0 being the first.

        Whether any call changed a tensor input is judged here (grading/integrity.py): a change fails the probe,
        except in the first call of a `check_inputs` probe (the caller reads `inputs_changed` and words its
        own message), and except where `inputs_may_change` (a check about something else, whose inputs are not
        used again: the function's own question charges the change). `non_leaf`: the arguments of `grad_args`
        reach the function as results of an operation, as inside a network, not as leaves of the graph (where
        an in-place edit is an autograd error). `record=False`: a call made to explain a failure already seen (is
        it another question's mistake?), kept out of the calls the diagnosis reads."""
        child = self._connect()
        request = run_request(target, *args, kwargs=kwargs, init=init, params=params, method=method,
                              grad_args=grad_args, backward=backward, check_inputs=check_inputs, more=more,
                              train=train, layouts=layouts, no_grad=no_grad, non_leaf=non_leaf)
        try:
            reply = child.request(request, self.server.config.limits.call_seconds)
        except ChildFailure as failure:
            raise StudentFault(f"calling {described(request)}: {failure}") from None
        return self._checked(request, reply, inputs_may_change, record)

    def runs(self, probes: list[dict], inputs_may_change: bool = False, record: bool = True) -> list[Reply]:
        """Several probes, each `run_request(...)`'s, in one round trip (the child's Harness.runs): the replies in
        order, each checked as `run` checks its own; the first probe that fails raises, as it would have alone (the
        child stops there too). A reply's values are evidence for the diagnosis once the test judges them
        (`judging`), so that the probes after a failing one are not, as when each was a round trip of its own.
        Time allowed: one probe's for each probe, as when each was sent alone."""
        child = self._connect()
        seconds = self.server.config.limits.call_seconds * len(probes)
        try:
            batch = child.request({"op": "runs", "runs": probes}, seconds)
        except ChildFailure as failure:
            raise StudentFault(f"calling {described(probes[0])} and {len(probes) - 1} further probes: "
                               f"{failure}") from None
        self._keep_output(batch)
        replies = batch.get("replies")
        if not isinstance(replies, list) or not replies or len(replies) > len(probes) \
                or not all(isinstance(r, dict) for r in replies):
            raise StudentFault(f"calling {described(probes[0])}: the process sent back a malformed reply")
        checked = []
        for request, reply in zip(probes, replies):
            try:
                one = self._checked(request, reply, inputs_may_change, False)
            except NotAttempted:
                raise
            except StudentFault:  # an error or a changed input: evidence now, as with `run` (unless `record=False`)
                if record:
                    record_call(self.diagnoser, request, reply)
                raise
            checked.append(replace(one, evidence=(request, reply)))
        if len(checked) < len(probes):  # every reply was ok, yet the child stopped early: not an honest harness
            raise StudentFault(f"calling {described(probes[len(checked)])}: the process sent back no reply")
        return checked

    def judging(self, reply: Reply) -> Reply:
        """A reply of `runs` about to be judged: its call is now evidence for the diagnosis."""
        if reply.evidence:
            record_call(self.diagnoser, *reply.evidence)
        return reply

    def _checked(self, request: dict, reply: dict, inputs_may_change: bool, record: bool) -> Reply:
        """One probe's reply judged: an error raised as the student's fault, the child's report checked."""
        target, init, more = request["target"], request["init"], request["more"]
        args, kwargs, layouts = request["args"], request["kwargs"], request["layouts"]
        check_inputs = request["check_inputs"]
        what = described(request)
        self._keep_output(reply)
        check_watch(what, reply)
        if not reply.get("ok"):
            error = reply.get("error")
            kind = error.get("type") if isinstance(error, dict) else None
            if kind in ("Missing", "NotImplementedError"):
                raise NotAttempted(explain_error(what, error, self.load_errors))
            if record:
                record_call(self.diagnoser, request, reply)
            if init is None:  # a function: say what the failing call was sent
                what = failed_call(target, args, kwargs, [(m["args"], m["kwargs"]) for m in more], reply.get("call"),
                                   layouts)
            text, diagnoses = explain_exception(what, error) if isinstance(error, dict) else (f"{what} failed", ())
            raise StudentFault(text, diagnoses=diagnoses)
        # The reply is the child's word: a file that rewired its own process may send anything, and
        # whatever shape it has must end as the student's failure, never as a grader error.
        fields = {"arg_grads": dict, "param_grads": dict, "param_names": dict, "more": list}
        for key, kind in fields.items():
            if reply.get(key) is not None and not isinstance(reply[key], kind):
                raise StudentFault(f"calling {what}: the process sent back a malformed reply ({key})")
        try:
            changed = integrity.changed_inputs(request, reply.get("after"))
        except integrity.Unconfirmed as why:
            raise StudentFault(f"calling {what}: the grader could not confirm that your code left its inputs "
                               f"unchanged ({why}); a file that rewires the grader's own process gets this. "
                               "Your instructor will see this.") from None
        # the child's own word on this is never read: what changed is what the parent found
        reply["inputs_changed"] = [f"argument {n + 1}" in changed[0] for n in range(len(args))] if check_inputs else []
        if record:
            record_call(self.diagnoser, request, reply)
        mutated = [f"{name} of call {n}" for n, names in enumerate(changed, 1) for name in names
                   if not (inputs_may_change or (check_inputs and n == 1))]
        if mutated:  # every input of every call: a check_inputs caller words its own message for the first call
            raise StudentFault(f"{what} modified its inputs in place ({'; '.join(mutated[:4])}); a function must "
                               "leave every input as it was.",
                               diagnoses=(structural.inputs_modified(what, mutated[:4]),))
        return Reply(reply.get("output"), reply.get("arg_grads") or {}, reply.get("param_grads") or {},
                     reply.get("param_names") or {}, tuple(reply.get("inputs_changed") or ()),
                     tuple(reply.get("more") or ()))

    def sequence(self, calls: list) -> list:
        """The outputs of a sequence of calls (grading/calls.py: Call), sent to the child in one round trip."""
        return run_sequence(self, calls)

    def call(self, target: str, *args, **kwargs) -> object:
        return self.run(target, *args, kwargs=kwargs).output

    def close(self, settle: bool = True) -> None:
        """End the file's child (see Child.close for `settle`)."""
        if self.child is not None:
            self.child.close(settle)  # a no-op for a child that already failed or was retired
        self.child = None


def run_request(target: str, *args, kwargs: dict | None = None, init: tuple | None = None, params: dict | None = None,
                method: str | None = None, grad_args: tuple = (), backward: dict | None = None,
                check_inputs: bool = False, more: list | None = None, train: bool = False, layouts: dict | None = None,
                no_grad: bool = False, non_leaf: bool = False, stand_in: tuple = ()) -> dict:
    """The child's request for one probe (StudentFile.run's arguments): for `StudentFile.runs`. `stand_in`
    ("attention"): the file's own function of that name replaced by the harness's plain one during the probe."""
    return {"op": "run", "target": target, "args": list(args), "kwargs": kwargs or {}, "init": init,
            "params": params or {}, "method": method, "grad_args": list(grad_args), "backward": backward,
            "check_inputs": check_inputs, "train": train, "layouts": layouts or {}, "no_grad": no_grad,
            "non_leaf": non_leaf, "more": [further(*m) for m in (more or [])], "stand_in": list(stand_in)}


def further(args, kwargs: dict | None = None, how: dict | None = None) -> dict:
    """One further call of a run request: (args, kwargs) and optionally {"reuse": m} (the tensors of call m, the
    first being 0, refilled in place with these values) and {"keep": True} (its inputs kept alive after it)."""
    options = {key: value for key, value in (how or {}).items() if key in ("reuse", "keep")}
    return {"args": list(args), "kwargs": kwargs or {}, **options}


def described(request: dict) -> str:
    init = request.get("init")
    return f"{request['target']}(...)" if init is None else f"{request['target']}{tuple(init)}"


FUSED_HINT = ("this assignment asks you to build attention by hand (score -> mask -> softmax -> mix), so fused "
              "attention (F.scaled_dot_product_attention, nn.MultiheadAttention, F.multi_head_attention_forward, "
              "flex_attention, or their torch.ops kernels) may not run inside your code, whatever name reaches it.")


def failed_call(target: str, args: tuple, kwargs: dict | None, more: list | None, number: object,
                layouts: dict | None) -> str:
    """`calling apply_mask(scores: float32 (2, 3, 5), mask: bool (5,) (a 1-D mask))`: the call that raised (0 the
    first, then those of `more`), as it was sent."""
    calls = [(args, kwargs or {}), *((tuple(a), k or {}) for a, k in (more or []))]
    index = number if isinstance(number, int) and 0 <= number < len(calls) else 0
    laid = {int(i): layout for i, layout in ((layouts or {}).get(str(index)) or {}).items() if str(i).isdigit()}
    sent = Call(target, tuple(calls[index][0]), dict(calls[index][1]), laid).describe()
    return f"calling {sent}" + (f" (call {index + 1} of {len(calls)})" if len(calls) > 1 else "")


def check_watch(what: str, reply: dict) -> None:
    """The child reports which fused attention kernels ran during the call. A reply without an intact
    report means the watch was switched off or the harness rewired: that is the student's failure."""
    fused = reply.get("fused")
    if not reply.get("ok") and not fused:
        return  # the call failed (or the name is missing): the error itself is the answer
    if fused and isinstance(fused, list):  # a banned route was taken (and refused): say so, watch or no watch
        names = ", ".join(str(n)[:80] for n in fused[:4])
        raise StudentFault(f"calling {what} ran {names}: {FUSED_HINT}",
                           diagnoses=(structural.forbidden_api(f"calling {what} ran {names}"),))
    if reply.get("watch") != "on" or not isinstance(fused, list):
        raise StudentFault(f"calling {what}: the grader could not confirm which PyTorch operations your code ran "
                           "(its check for fused attention kernels was switched off or replaced). "
                           "Your instructor will see this.")
    if fused:
        names = ", ".join(str(n)[:80] for n in fused[:4])
        raise StudentFault(f"calling {what} ran {names}: {FUSED_HINT}",
                           diagnoses=(structural.forbidden_api(f"calling {what} ran {names}"),))


def clean_errors(errors: object) -> list[dict]:
    """Load errors as the harness reports them, reduced to short strings whatever the child sent."""
    if not isinstance(errors, list):
        return []
    cleaned = []
    for error in errors[:20]:
        if isinstance(error, dict):
            where = error.get("where")
            cleaned.append({"cell": error.get("cell") if isinstance(error.get("cell"), int) else None,
                            "type": str(error.get("type", "Error"))[:100],
                            "message": str(error.get("message", ""))[:2000],
                            "where": [str(w)[:300] for w in where[:5]] if isinstance(where, list) else []})
    return cleaned


def explain_error(what: str, error: object, load_errors: list[dict]) -> str:
    if not isinstance(error, dict):
        return f"{what} failed"
    kind, message = str(error.get("type", "Error")), str(error.get("message", ""))[:500]
    if kind == "Missing":
        text = f"{what}: {message} in your file."
        if load_errors:
            first = load_errors[0]
            where = f" ({'; '.join(first['where'])})" if first.get("where") else ""
            text += (f" Running your file stopped with {first.get('type')}: {str(first.get('message'))[:200]}"
                     f"{where}, so later definitions may be missing.")
        return text
    if kind == "NotImplementedError":
        return f"{what} is not implemented yet (it still raises NotImplementedError)."
    where = error.get("where")
    where = "; ".join(str(w) for w in where[-2:]) if isinstance(where, list) else ""
    return f"{what} raised {kind}: {message}" + (f"\n  at {where}" if where else "")


def as_tensor(value: object, what: str) -> torch.Tensor:
    if not isinstance(value, torch.Tensor):
        raise StudentFault(f"{what} should return a tensor, but returned {type(value).__name__}")
    return value
