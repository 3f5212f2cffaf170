"""One mistake, one charge for a layer that calls the student's own `attention` (docs/grading.md): a failure of the
layer's calls themselves (an error, a fused route, an input changed), seen before any answer is judged, is charged in
attention's question when the student's `attention` is its cause. What the layer answers is judged by its hidden
tests, which charge a wrong answer that attention explains in the same way (attention_explains there).
"""
from __future__ import annotations

from .calls import made
from .faults import ExplainedElsewhere, StudentFault


def layer_runs(student, requests):
    """student.runs for layer probes; a failure of the calls themselves (an error, a fused route) that comes from
    the student's own `attention` is charged in attention's question (raised_in_attention)."""
    try:
        return student.runs(requests)
    except StudentFault as fault:
        raise raised_in_attention(student, requests, fault) from None


def raised_in_attention(student, requests, fault):
    """`fault` (layer probes `requests` failed before any answer was judged: an error, a fused route, an input
    changed), or ExplainedElsewhere naming attention when the student's own `attention` is the cause: the same
    probes, with that function stood in for by attention written by hand (the child's request "stand_in"), all
    run cleanly; for a fused route, the student's `attention` alone, on the first probe's projections, also reaches
    one. A layer whose own code fails, or reaches a fused route, is charged for it. Asked only after a failure."""
    if not fault.attempted or isinstance(fault, ExplainedElsewhere):
        return fault
    try:
        student.runs([{**r, "stand_in": ["attention"]} for r in requests], inputs_may_change=False, record=False)
    except StudentFault:
        return fault  # the layer's own code fails or reaches a fused route: the layer's mistake
    if not any(d.mistake == "forbidden-api" for d in fault.diagnoses):
        if not attention_answers(student, requests[0]):
            return fault  # an attention that never answers: the layer scores as over the stub (no failure beats it)
        return ExplainedElsewhere(f"{fault} With attention written by hand in place of your own attention, your "
                                  "layer runs these calls cleanly: this is charged in attention's question.",
                                  questions=("attention",))
    mask = [made(a) for a in requests[0]["args"][2:3]]
    try:
        student.run("attention", *projections(requests[0]), *mask, inputs_may_change=True, record=False)
    except StudentFault as own:
        if any(d.mistake == "forbidden-api" for d in own.diagnoses):
            return ExplainedElsewhere(f"{fault} That route runs inside your own attention, which your layer calls "
                                      "(with attention written by hand in its place, your layer runs none): it is "
                                      "charged in attention's question.", questions=("attention",))
    return fault


def attention_answers(student, request) -> bool:
    """Whether the student's own `attention` answers (without an error) on the probe's projections, without a mask."""
    try:
        student.run("attention", *projections(request), inputs_may_change=True, record=False)
    except StudentFault:
        return False
    return True


def projections(request) -> tuple:
    """Q, K, V of the layer probe's first call: x_q W_Q^T, x_kv W_K^T, x_kv W_V^T with the weights it set."""
    x_q, x_kv = (made(a) for a in request["args"][:2])
    weights = {name: made(value) for name, value in (request.get("params") or {}).items()}
    return tuple((x.double() @ weights[f"W_{n}.weight"].double().T).float()
                 for n, x in (("Q", x_q), ("K", x_kv), ("V", x_kv)))
