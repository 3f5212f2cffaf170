"""Sequences of calls into student code, and how feedback names a call: its arguments' shapes and dtypes.

A hidden test sends all of one function's probes to the child as one sequence (one round trip; the child's
Harness.sequence), each call on inputs of its own, some dropped before the next call so their ids and memory
can be taken again, some kept and refilled with other values later (`reuse`), with calls of the file's other
functions in between (`judged=False`: they only stir the module's state). Every judged answer comes back and is
judged by the test; a failure names the call that failed as it was sent.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Callable

import torch

from ..diagnosis import Observation, Probe, structural
from . import integrity
from .diagnose import explain_exception
from .faults import NotAttempted, StudentFault
from .memo import memoized

@lru_cache(maxsize=1)
def parameters() -> dict[str, tuple[str, ...]]:
    """The names of each graded function's arguments, as the reference solutions (so the handouts' stubs) write
    them: read from solutions/, whatever functions the course's assignments define."""
    from .. import paths  # noqa: PLC0415

    names: dict[str, tuple[str, ...]] = {}
    # every solution folder's own file (not the course file's order: reading it would import YAML here)
    for path in sorted(p for p in paths.SOLUTIONS_DIR.glob("*/*.py") if p.stem == p.parent.name):
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (OSError, SyntaxError, ValueError):
            continue  # no names: a call is then described by argument numbers
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                names[node.name] = tuple(arg.arg for arg in node.args.args)
    return names


@dataclass(frozen=True)
class Call:
    """One call of a sequence. `layouts` {argument index: layout} hands an argument over in another memory
    layout (sandbox/child/inputs.py: laid_out); `keep` keeps its inputs alive after the call (else they are
    dropped); `reuse` (the index of a kept call) refills that call's tensors with this call's values."""
    target: str
    args: tuple
    kwargs: dict = field(default_factory=dict)
    layouts: dict = field(default_factory=dict)
    keep: bool = False
    reuse: int | None = None
    judged: bool = True
    grad_args: tuple = ()     # arguments that require a gradient, as in training (no backward pass is run)
    note: str = ""            # what feedback adds about the inputs ("allowed scores around -10000 ...")

    def request(self) -> dict:
        return {"target": self.target, "args": list(self.args), "kwargs": self.kwargs,
                "layouts": {str(i): layout for i, layout in self.layouts.items() if layout},
                "keep": self.keep, "reuse": self.reuse, "judged": self.judged, "grad_args": list(self.grad_args)}

    def describe(self) -> str:
        """`apply_mask(scores: float32 (3, 4, 6), mask: bool (6,) (a 1-D mask))`: what the call was sent."""
        names = parameters().get(self.target, ())
        parts = [describe_value(names[i] if i < len(names) else f"argument {i + 1}", value, self.layouts.get(i))
                 for i, value in enumerate(self.args)]
        parts += [describe_value(name, value) for name, value in self.kwargs.items()]
        return f"{self.target}({', '.join(parts)})" + (f" [{self.note}]" if self.note else "")


def describe_value(name: str, value: object, layout: str | None = None) -> str:
    if isinstance(value, dict) and set(value) == {"$randn"}:
        value = torch.empty(value["$randn"]["shape"], dtype=getattr(torch, value["$randn"].get("dtype", "float32")))
    if isinstance(value, torch.Tensor):
        dtype = str(value.dtype).removeprefix("torch.")
        if layout and layout.startswith("expanded:"):  # what the student's code received: a broadcast view
            shape = tuple(int(n) for n in layout.split(":", 1)[1].split(","))
            return f"{name}: {dtype} {shape}, expanded from {tuple(value.shape)} (stride 0)"
        text = f"{name}: {dtype} {tuple(value.shape)}"
        if "mask" in name and value.dim() < 3:
            text += f" (a {value.dim()}-D mask)"
        return text + (", not contiguous" if layout else "")
    if value is None:
        return f"{name}: None"
    return f"{name}: {type(value).__name__} {value!r}"[:120]


@dataclass
class Answers:
    """What a sequence gave: the outputs of the calls that returned (all of them, unless one raised), and the
    faults to charge once those outputs are judged (inputs modified in place, then the call that raised)."""
    outputs: list
    faults: list
    failed: Call | None = None   # the judged call that raised, if one did
    call: int | None = None      # its number in the sequence, and its error as the child reported it
    error: dict | None = None
    after: list = field(default_factory=list)    # the child's report of each call's inputs after it (integrity.py)
    changed: list = field(default_factory=list)  # the numbers of the judged calls that changed their inputs


def send_sequence(student, calls: list[Call]) -> Answers:
    """Run `calls` in the student's process in one round trip. A missing or unwritten function, a crash or a hang
    is raised at once; the rest is handed back to be charged after the outputs before it are judged."""
    from ..sandbox import ChildFailure  # noqa: PLC0415
    judged = [c for c in calls if c.judged]
    sent = judged if getattr(student, "unstirred", False) else calls
    try:
        reply = _request(student, sent)
    except ChildFailure as failure:
        if len(sent) == len(judged):
            raise StudentFault(f"calling {calls[0].target} and {len(sent) - 1} further calls: {failure}") from None
        # A crash or hang may be another function's, called in between: that is its own question's failure, so
        # the judged calls are sent again alone (to a fresh process) and charged only for what they do; this
        # file's later sequences go without calls in between, so that one broken function costs its time once.
        student.unstirred = True
        sent = judged
        try:
            reply = _request(student, sent)
        except ChildFailure as again:
            raise StudentFault(f"calling {calls[0].target} and {len(sent) - 1} further calls: {again}") from None
    if len(sent) != len(calls):
        reply = _realigned(reply, calls, sent)
    student._keep_output(reply)
    from .student import check_watch  # noqa: PLC0415 - student.py imports this module
    check_watch(f"{calls[0].target}(...)", reply)
    outputs = reply.get("outputs")
    if not isinstance(outputs, list) or len(outputs) > len(calls) or (reply.get("ok") and len(outputs) != len(calls)):
        raise StudentFault(f"calling {calls[0].target}: the process sent back a malformed reply")
    try:
        changed_calls = modified_calls(calls, reply.get("after"), len(outputs))
    except integrity.Unconfirmed as why:
        raise StudentFault(f"calling {calls[0].target}: the grader could not confirm that your code left its inputs "
                           f"unchanged ({why}); a file that rewires the grader's own process gets this. Your "
                           "instructor will see this.") from None
    answers = Answers(outputs, [], after=reply["after"], changed=list(changed_calls))
    changed = [name for names in changed_calls.values() for name in names][:4]
    if changed:
        target = calls[0].target
        answers.faults.append(StudentFault(f"{target} modified its inputs in place ({'; '.join(changed)}); a "
                                           "function must leave every input as it was.",
                                           diagnoses=(structural.inputs_modified(target, changed),)))
    if not reply.get("ok"):
        number = reply.get("call")
        failed = calls[number] if isinstance(number, int) and 0 <= number < len(calls) else None
        what = f"calling {failed.describe()}" if failed else f"calling {calls[0].target}(...)"
        error = reply.get("error")
        kind = error.get("type") if isinstance(error, dict) else None
        if kind in ("Missing", "NotImplementedError"):
            target = failed.target if failed else calls[0].target
            raise NotAttempted(f"{target} is not implemented yet (it still raises NotImplementedError)."
                               if kind == "NotImplementedError" else f"{target}: {error.get('message')} in your file.")
        text, diagnoses = explain_exception(what, error) if isinstance(error, dict) else (f"{what} failed", ())
        answers.faults.append(StudentFault(text, diagnoses=diagnoses))
        answers.failed, answers.call = failed, number
        answers.error = error if isinstance(error, dict) else None
    return answers


def _realigned(reply: dict, calls: list[Call], sent: list[Call]) -> dict:
    """A reply to `sent` (the judged calls of `calls` alone) as if to `calls`: None for each unjudged call."""
    where = [n for n, call in enumerate(calls) if call.judged]
    outputs, number = reply.get("outputs"), reply.get("call")
    if not isinstance(outputs, list) or len(outputs) > len(where):
        return reply  # malformed: judged as such
    placed: list = []
    for index, output in zip(where, outputs):
        placed += [None] * (index - len(placed)) + [output]
    after = reply.get("after")
    if not isinstance(after, list) or len(after) != len(outputs):
        return reply  # malformed: judged as such
    reports: list = []
    for index, report in zip(where, after):
        reports += [None] * (index - len(reports)) + [report]
    if reply.get("ok"):
        placed += [None] * (len(calls) - len(placed))
        reports += [None] * (len(calls) - len(reports))
    return {**reply, "outputs": placed, "after": reports,
            "call": where[number] if isinstance(number, int) and 0 <= number < len(where) else number}


def _request(student, calls: list[Call]) -> dict:
    """One round trip. Time allowed: one call's, and `sequence_call_seconds` (a tenth of a second) more per call."""
    limits = student.server.config.limits
    return student._connect().request({"op": "sequence", "calls": [c.request() for c in calls]},
                                       limits.call_seconds + limits.sequence_call_seconds * len(calls))


def modified(calls: list[Call], after: object, returned: int) -> list[str]:
    """"argument 2 of call 5: apply_mask(...)" for the first few inputs a judged call changed (modified_calls)."""
    return [name for names in modified_calls(calls, after, returned).values() for name in names][:4]


def modified_calls(calls: list[Call], after: object, returned: int) -> dict[int, list[str]]:
    """{call's index: ["argument 2 of call 5: apply_mask(...)", ...]} for each tensor input of a judged call that
    differs after the call from what the parent sent (grading/integrity.py, from the child's report of what each
    input then holds); `returned`: the number of calls that returned, each with its report. An unjudged call's
    changes are its own question's. Raises integrity.Unconfirmed when the report is missing or malformed."""
    if not isinstance(after, list) or len(after) != returned:
        raise integrity.Unconfirmed("no report of the inputs after each call")
    named = {}
    for number, (call, report) in enumerate(zip(calls, after)):
        if call.judged:
            layouts = {str(i): layout for i, layout in call.layouts.items() if layout}
            names = integrity.changed_in_call(list(call.args), call.kwargs, layouts, report)
            if names:
                named[number] = [f"{name} of call {number + 1}: {call.describe()}" for name in names]
    return named


def record(student, call: Call, output: object = None, raised: bool = False) -> None:
    """The call as the diagnosis sees it (grading/diagnose.py): made before its output is judged, so that the
    calls after a failing one are not evidence, as when each call was a round trip of its own."""
    probe = Probe(call.target, tuple(call.args), dict(call.kwargs))
    student.diagnoser.record(Observation(probe, raised=True, report={"backward": False}) if raised
                             else Observation(probe, output))


def charge(student, answers: Answers, calls: list[Call] | None = None, callees: tuple = ()) -> None:
    """Raise the sequence's first fault: inputs changed in place, else the call that raised. With `callees`
    (grading/callees.py), a fault that a graded function the target calls explains is raised as that one's."""
    for fault in answers.faults:
        raised = answers.failed is not None and fault is answers.faults[-1]
        if raised:
            record(student, answers.failed, raised=True)
        if callees and calls:
            from .callees import explained  # noqa: PLC0415 - callees.py builds on this module
            number = answers.call if raised else answers.changed[0]
            fault = explained(student, calls[number], fault, callees, answers=answers, number=number)
        raise fault


def run_sequence(student, calls: list[Call]) -> list:
    """The outputs of every call (an unjudged call's answer is None); a failure of a judged call, or inputs
    modified in place by one, is the student's fault, naming the call as it was sent."""
    answers = send_sequence(student, calls)
    for call, output in zip(calls, answers.outputs):
        if call.judged:
            record(student, call, output)
    charge(student, answers)
    return answers.outputs


Judge = Callable[[object, tuple, str], None]  # (the call's output, its arguments as tensors, how to name the call)


def made(value: object) -> object:
    """A seeded input ({"$randn": ...}) as the tensor the child makes of it; anything else as it is."""
    if isinstance(value, dict) and set(value) == {"$randn"}:
        spec = value["$randn"]
        return _seeded(tuple(spec["shape"]), spec["seed"], spec.get("dtype", "float32"), spec.get("scale", 1.0))
    return value


@memoized  # the same for every student
def _seeded(shape, seed, dtype, scale):
    from ..sandbox.child.inputs import seeded_randn  # noqa: PLC0415
    return seeded_randn(list(shape), seed, dtype, scale)


def flipped(args: tuple) -> tuple:
    """The same shapes, dtypes and layouts with other values: every tensor reversed along all its axes."""
    return tuple(made(a).flip(tuple(range(made(a).dim()))) if isinstance(made(a), torch.Tensor) else a for a in args)


def refills(first: tuple) -> list[tuple[tuple, str]]:
    """Two further calls on the very tensors of a first call (kept alive), refilled in place (a run request's
    further call with {"reuse": 0}, grading/student.py: further): with other values (`flipped`), then with its own
    again; (their arguments, what feedback says of them). The same ids, addresses, shapes and layouts: a module
    that answers from a cache keyed on any of them answers one of the two from a stale entry."""
    return [(flipped(first), "the first call's tensors refilled in place with other values"),
            (tuple(made(a) for a in first), "the first call's tensors refilled with its own values again")]


def in_a_row(first: tuple, second: tuple) -> tuple[list, list[tuple[tuple, str]]]:
    """A module's calls as a caller's program makes them, for a run request: `first` (kept alive), `second` (its
    inputs dropped after it, their ids and memory free), then `refills` of the first; (the request's further calls,
    [(each call's arguments, its name)] for judging every answer in order)."""
    again = refills(first)
    more = [(second, {}), *((args, {}, {"reuse": 0}) for args, _ in again)]
    return more, [(first, "first call"), (second, "second call"), *again]


STIR_EVERY = 6  # judged calls between two calls of another function


def stateful(judged: list[tuple[Call, Judge]], stir: list[Call]) -> list[tuple[Call, Judge | None]]:
    """The judged calls as a caller's program makes them: the first call's inputs kept, then refilled in place
    with other values (the same ids, addresses and layouts) and with its own values again, later calls' inputs
    dropped after them (their ids and memory free for the next call), and an unjudged call of another function
    (`stir`) after every STIR_EVERY-th call. Every judged call is judged."""
    (first, judge), rest = judged[0], judged[1:]
    sequence: list[tuple[Call, Judge | None]] = [(replace(first, keep=True), judge)]
    again = [(replace(first, args=flipped(first.args), reuse=0, note=note(first, "the first call's tensors refilled "
                                                                          "in place with other values")), judge),
             (replace(first, reuse=0, note=note(first, "the first call's tensors refilled with its values again")),
              judge)]
    for number, (call, check) in enumerate(rest, 1):
        sequence.append((call, check))
        if number <= len(again):
            sequence.append(again[number - 1])
        if stir and number % STIR_EVERY == 0:
            sequence.append((stir[(number // STIR_EVERY) % len(stir)], None))
    sequence += again[len(rest):]
    return sequence


def note(call: Call, more: str) -> str:
    return f"{call.note}; {more}" if call.note else more


def judge_sequence(student, sequence: list[tuple[Call, Judge | None]], callees: tuple = ()) -> None:
    """Run the sequence in one round trip and judge every judged call's answer in order; then charge inputs
    modified in place, then a call that raised. `callees`: the graded functions the target may call, whose
    mistakes are charged in their own questions (grading/callees.py)."""
    calls = [call for call, _ in sequence]
    answers = send_sequence(student, calls)
    for (call, judge), output in zip(sequence, answers.outputs):
        if judge is not None:
            record(student, call, output)
            try:
                judge(output, tuple(made(a) for a in call.args), call.describe())
            except StudentFault as fault:
                if not callees:
                    raise
                from .callees import explained  # noqa: PLC0415 - callees.py builds on this module
                raise explained(student, call, fault, callees, output=output) from None
    charge(student, answers, calls, callees)
