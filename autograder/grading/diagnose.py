"""Why a hidden test failed, said only when the evidence shows it: the grading side of autograder/diagnosis.

StudentFile records every call it makes in its Diagnoser (`record_call`) and translates an exception raised by
the student's code (`explain_exception`). When a hidden test fails with a StudentFault, the plugin asks
`explain_failure` about the calls that test made, and the diagnoses go on the fault (then into
TestResult.diagnoses). Nothing here runs while a student passes.
"""
from __future__ import annotations

import os

from ..diagnosis import Diagnoser, Observation, Probe, structural, translate
from ..diagnosis.compare import agree
from ..results import Diagnosis
from .faults import StudentFault


SWITCH = "ATTNKIT_DIAGNOSIS"  # "off": failures get only the diagnoses their check gave (bench/bench_grading.py)


def record_call(diagnoser: Diagnoser, request: dict, reply: dict) -> None:
    """One observation per call of a `run` request: the first call and each of its `more` calls."""
    init = request.get("init")
    params = dict(request.get("params") or {}) if init is not None else None
    calls = [(request.get("args") or [], request.get("kwargs") or {})]
    calls += [(extra.get("args") or [], extra.get("kwargs") or {}) for extra in request.get("more") or []]
    outputs = [reply.get("output"), *(reply.get("more") or [])] if reply.get("ok") else []
    report = {"param_names": reply.get("param_names") or {}, "inputs_changed": tuple(reply.get("inputs_changed") or ())}
    for index, (args, kwargs) in enumerate(calls):
        probe = Probe(request["target"], tuple(args), dict(kwargs), params, init=tuple(init) if init else None)
        if index < len(outputs):
            diagnoser.record(Observation(probe, outputs[index], report=report if index == 0 else {}))
        else:
            # with a backward pass asked for, the failure may be there: the forward result is unknown
            backward = bool(request.get("backward") or request.get("grad_args"))
            diagnoser.record(Observation(probe, raised=True, report={"backward": backward}))
            break


def explain_exception(what: str, error: dict) -> tuple[str, tuple[Diagnosis, ...]]:
    """The message for an exception from the student's code, and the mistakes it proves."""
    translation = translate(what, error)
    return translation.text, translation.findings


def explain_failure(student, since: int, fault) -> tuple[Diagnosis, ...]:
    """The diagnoses of a failed test: those already on the fault, then what the test's calls (from index
    `since` of the student's Diagnoser on) prove."""
    diagnoser: Diagnoser = student.diagnoser
    found = getattr(fault, "diagnoses", ())
    if not isinstance(found, (tuple, list)) or not all(isinstance(d, Diagnosis) for d in found):
        return found  # a grader's malformed diagnoses: the plugin reports them as the grader's problem
    if os.environ.get(SWITCH) == "off":
        return tuple(found)  # the bench's baseline: grading without the diagnosis
    found = list(found)
    by_target = diagnoser.explain_by_target(since)
    if not by_target and not found and elicit(student, since):
        by_target = diagnoser.explain_by_target(since)
    if widen(student, since, by_target):
        by_target = diagnoser.explain_by_target(since)
    ambiguous = [target for target, diagnoses in by_target.items() if len(diagnoses) > 1]
    if ambiguous and all(tell_apart(student, target, since) for target in ambiguous):
        by_target = diagnoser.explain_by_target(since)
    found += [diagnosis for diagnoses in by_target.values() for diagnosis in diagnoses]
    window = range(since, len(diagnoser))
    found += changed_inputs(diagnoser, window)
    found += cut_graph(diagnoser, window, getattr(fault, "no_gradient", None))
    found += backward_differs(diagnoser, window, getattr(fault, "wrong_gradient", None))
    found += backward_without_graph(diagnoser, window, str(fault))
    found += biases(student, window)
    kept: dict[str, Diagnosis] = {}
    for diagnosis in found:
        kept.setdefault(diagnosis.mistake, diagnosis)
    return tuple(kept.values())


def tell_apart(student, target: str, since: int) -> bool:
    """Several mistakes reproduce this test's wrong result: call the student's code once more on fresh inputs
    of the same kind, where they rarely agree (the new call joins the evidence)."""
    observation = student.diagnoser.last_wrong(target, since)
    if observation is None:
        return False
    call(student, observation.probe.redrawn(seed=len(student.diagnoser)))
    return True


def widen(student, since: int, by_target: dict) -> bool:
    """A model reproduces this test's wrong calls only on degenerate inputs (a size-1 axis, where candidates
    coincide): call the same target once more with those axes grown, so that the evidence can tell."""
    diagnoser, called = student.diagnoser, False
    targets = dict.fromkeys(o.probe.target for o in diagnoser.observations[since:])
    for target in [t for t in targets if t not in by_target and diagnoser.held_back(t, since)]:
        observation = diagnoser.last_wrong(target, since)
        probe = observation.probe.widened(seed=len(diagnoser)) if observation else None
        if probe is not None:
            call(student, probe)
            called = True
    return called


def elicit(student, since: int) -> bool:
    """The test's last call raised and nothing explains it: call the same target once more with as many keys
    as queries (registry.square), where code with a shape slip often runs and its result can be matched."""
    if not len(student.diagnoser) > since or not student.diagnoser.observations[-1].raised:
        return False
    probe = student.diagnoser.scope.square(student.diagnoser.observations[-1].probe, seed=700_000 + len(student.diagnoser))
    if probe is None:
        return False
    call(student, probe)
    return True


def call(student, probe: Probe) -> None:
    """One more call of the student's code, recorded like every other; its failure is evidence too."""
    try:
        student.run(probe.target, *probe.args, kwargs=dict(probe.kwargs), init=probe.init,
                    params=None if probe.params is None else dict(probe.params))
    except StudentFault:
        pass


def changed_inputs(diagnoser: Diagnoser, window: range) -> list[Diagnosis]:
    for index in window:
        observation = diagnoser.observations[index]
        changed = [f"argument {n + 1}" for n, flag in enumerate(observation.report.get("inputs_changed", ())) if flag]
        if changed:
            return [structural.inputs_modified(observation.probe.describe(), changed)]
    return []


def right_last_call(diagnoser: Diagnoser, window: range) -> str | None:
    """The description of the window's last call when its result is right, else None."""
    if not len(window) or diagnoser.observations[window[-1]].raised or not diagnoser.right(window[-1]):
        return None
    return diagnoser.observations[window[-1]].probe.describe()


def cut_graph(diagnoser: Diagnoser, window: range, missing: str | None) -> list[Diagnosis]:
    """No gradient reached `missing` although the call's result is right: only a cut graph does that."""
    shown = right_last_call(diagnoser, window) if missing else None
    if shown is None:
        return []
    return [structural.graph_cut(f"{shown} returns the right result, but no gradient reaches {missing}")]


def backward_differs(diagnoser: Diagnoser, window: range, wrong: str | None) -> list[Diagnosis]:
    """A gradient is wrong although the call's result is right: the backward pass does not follow the forward
    computation (a wrong result would explain a wrong gradient, so nothing is said then)."""
    shown = right_last_call(diagnoser, window) if wrong else None
    if shown is None:
        return []
    return [structural.backward_differs(f"{shown} returns the right result, but {wrong} is not the derivative "
                                        "of that result")]


NO_GRAPH = "does not require grad and does not have a grad_fn"


def backward_without_graph(diagnoser: Diagnoser, window: range, message: str) -> list[Diagnosis]:
    """Backward failed because the result has no gradient history, yet the same function returns right
    results: the graph is cut inside it (a wrong result with no history proves nothing)."""
    if NO_GRAPH not in message or not len(window) or not diagnoser.observations[window[-1]].raised:
        return []
    target = diagnoser.observations[window[-1]].probe.target
    right = [i for i, o in enumerate(diagnoser.observations) if o.probe.target == target and diagnoser.right(i)]
    if not right:
        return []
    shown = diagnoser.observations[right[-1]].probe.describe()
    return [structural.graph_cut(f"{target} returns the right result (on {shown}), but its result has no gradient "
                                 "history: backward through it fails")]


def biases(student, window: range) -> list[Diagnosis]:
    """A module with bias parameters the probe did not set: called again with those biases at 0, is its
    result right? Then the biases are what is wrong."""
    for index in window:
        observation = student.diagnoser.observations[index]
        probe, names = observation.probe, observation.report.get("param_names", {})
        extra = structural.unexpected_biases(names, probe.params or {})
        if not extra or probe.init is None:
            continue
        try:
            again = student.run(probe.target, *probe.args, kwargs=dict(probe.kwargs), init=probe.init,
                                params=structural.biases_zeroed(dict(probe.params or {}), names, extra))
        except StudentFault:
            return []
        try:
            scope = student.diagnoser.scope
            right = scope.canonical(probe.target, scope.reference(probe.in_float64()))
        except Exception:  # noqa: BLE001 - no reference for this probe: nothing proven
            return []
        if agree(scope.canonical(probe.target, again.output), right).same:
            module = f"{probe.target}{tuple(probe.init)}"
            return [structural.projection_bias(module, extra, f"its result on {probe.describe()}")]
        return []
    return []
