"""Known mistakes for the public checks: their numbers on each check's fixed inputs, computed at
`make assignments` time from the trusted mistake models, so that a check in the student's notebook can name the
mistake whose numbers the student's result matches, without the models or the reference in the handout.

A public check opts in by calling `known_mistake("<check function>", <call number>, result)` in an assertion
message, for a call whose inputs are fixed (numbers in the check, not torch.randn) (and may compare with `right_result("<check function>", <call number>)`, the reference's numbers). The generator runs each such check once against the solution with the checked function recorded,
and writes, per call, what every mistake model gives on those inputs. Mistakes that give the right result
there, or the same result as another mistake, are left out: this check could not tell them apart.
"""
from __future__ import annotations

import math

import torch

from ..diagnosis.catalog import MISTAKES
from ..diagnosis.compare import agree
from ..diagnosis.probe import Probe
from ..diagnosis.registry import Scope
from .master import Master, MasterError, solution

CALL = "known_mistake("

HELPER = '''

def known_mistake(check, call, result):
    """A sentence naming the known mistakes whose numbers on this check's inputs equal your result, or ""."""
    import torch
    try:
        parts = list(result) if isinstance(result, (tuple, list)) else [result]
        named = []
        for title, is_pair, expected in KNOWN_MISTAKES.get(check, [[]] * (call + 1))[call]:
            if is_pair != isinstance(result, (tuple, list)) or len(parts) != len(expected):
                continue
            if all(_same(part, torch.tensor(values)) for part, values in zip(parts, expected)):
                named.append(title)
    except Exception:  # a result of another kind: nothing to say about it
        return ""
    if not named:
        return ""
    return " Your result is what this known mistake gives: " + "; ".join(dict.fromkeys(named)) + "."


def right_result(check, call):
    """The right result of that call of the check, as a tensor or a tuple of tensors."""
    import torch
    is_pair, values = RIGHT_RESULTS[check][call]
    parts = [torch.tensor(v) for v in values]
    return tuple(parts) if is_pair else parts[0]


def _same(part, expected):
    import torch
    if not isinstance(part, torch.Tensor) or tuple(part.shape) != tuple(expected.shape):
        return False
    if expected.dtype == torch.bool or part.dtype == torch.bool:
        return part.dtype == expected.dtype and torch.equal(part, expected)
    mine, theirs = part.detach().double(), expected.double()
    scale = theirs[theirs.isfinite()].abs().max().item() if theirs.isfinite().any() else 0.0
    return torch.allclose(mine, theirs, rtol=1e-4, atol=1e-5 * max(1.0, scale), equal_nan=True)
'''


def uses_known_mistakes(master: Master, exercise: str) -> bool:
    return any(CALL in cell.source for cell in master.of("public", exercise))


def solution_namespace(master: Master) -> dict:
    namespace: dict = {"__name__": f"solution_{master.name}"}
    for cell in master.cells:
        if cell.role == "setup":
            exec(compile(cell.source, f"<{master.name} setup>", "exec"), namespace)
        elif cell.role == "solution":
            exec(compile(solution(cell.source), f"<{master.name} solution>", "exec"), namespace)
    return namespace


def recorded(target: str, implementation, calls: list[Probe], outputs: list):
    """The solution's function or class, recording every call's inputs (and a module's parameters) and result."""
    def copies(values):
        return tuple(v.detach().clone() if isinstance(v, torch.Tensor) else v for v in values)

    if isinstance(implementation, type):
        class Recorded(implementation):
            def forward(self, *args, **kwargs):
                params = {name: p.detach().clone() for name, p in self.named_parameters()}
                calls.append(Probe(target, copies(args), dict(zip(kwargs, copies(kwargs.values()))), params))
                outputs.append(super().forward(*args, **kwargs))
                return outputs[-1]
        return Recorded

    def function(*args, **kwargs):
        calls.append(Probe(target, copies(args), dict(zip(kwargs, copies(kwargs.values())))))
        outputs.append(implementation(*args, **kwargs))
        return outputs[-1]
    return function


def known_table(master: Master, exercise: str) -> tuple[dict, dict]:
    """({check function: [per call: [(title, is_pair, [values per part])]]}, {check function: [per call: (is_pair,
    [values per part]) of the right result]}) for the exercise's public checks that use known_mistake."""
    outputs: list = []  # the solution's results of the check being recorded, which right_result gives back
    checks: dict = {"test_case": lambda **options: (lambda function: function), "known_mistake": lambda *a: "",
                    "right_result": lambda check, call: outputs[call]}
    for cell in master.of("public", exercise):
        exec(compile(cell.source, f"<{master.name} public {exercise}>", "exec"), checks)
    implementation = solution_namespace(master)[exercise]
    scope = Scope(master.name)  # this assignment's own models: another master's exercise of the name is no guide
    table, right = {}, {}
    for name, check in list(checks.items()):
        if name.startswith("test_") and callable(check) and CALL in _source_of(master, exercise, name):
            calls: list[Probe] = []
            outputs.clear()
            torch.manual_seed(0)  # a check's unseeded inputs: the same file every time (only fixed calls are used)
            check(**{exercise: recorded(exercise, implementation, calls, outputs)})
            table[name] = [mistakes_on(call, scope) for call in calls]
            right[name] = [encoded(scope.reference(call.in_float64())) for call in calls]
    return table, right


def _source_of(master: Master, exercise: str, function: str) -> str:
    cells = [c.source for c in master.of("public", exercise) if f"def {function}(" in c.source]
    return cells[0].split(f"def {function}(", 1)[1].split("\ndef ", 1)[0] if cells else ""


def mistakes_on(call: Probe, scope: Scope = Scope()) -> list[tuple]:
    probe = call.in_float64()
    right = scope.reference(probe)
    found = []
    for model in scope.models_for(call.target):
        if model.fit is not None:
            continue
        try:
            output, _ = model.run(probe, None)
        except Exception:  # noqa: BLE001 - this mistake raises on these inputs, or cannot be modelled here
            continue
        if not agree(output, right).same:
            found.append((model.mistake, output))
    told_apart = [(m, out) for m, out in found
                  if not any(other != m and agree(out, theirs).same for other, theirs in found)]
    return [(MISTAKES[m], *encoded(out)) for m, out in told_apart]


def encoded(output) -> tuple[bool, list]:
    return isinstance(output, (tuple, list)), [plain(part) for part in _parts(output)]


def _parts(output) -> list:
    return list(output) if isinstance(output, (tuple, list)) else [output]


def plain(value: torch.Tensor):
    """A tensor as nested Python numbers, 8 significant digits (the check compares to 1e-4)."""
    if value.dtype == torch.bool:
        return value.tolist()
    return _rounded(value.double().tolist())


def _rounded(values):
    if isinstance(values, list):
        return [_rounded(v) for v in values]
    return values if not math.isfinite(values) else float(f"{values:.8g}")


def known_block(master: Master, exercise: str) -> str:
    """The lines a public test file needs for its known_mistake calls ("" when it makes none)."""
    if not uses_known_mistakes(master, exercise):
        return ""
    if not Scope(master.name).owns(exercise):
        # another assignment's exercise of this name has models; they say nothing about this one
        raise MasterError(f"{master.name}.py: the public checks of {exercise} call known_mistake, which needs built-in "
                          f"mistake models of {exercise} in this assignment, and it has none: declare its mistakes in "
                          "its spec instead (docs/authoring.md, \"Declaring a spec\").")
    table, right = known_table(master, exercise)
    return (f"# What known mistakes give on these checks' fixed inputs, by check and call, and the right results "
            f"(made by `make assignments`).\nnan, inf = float(\"nan\"), float(\"inf\")\n"
            f"KNOWN_MISTAKES = {table!r}\nRIGHT_RESULTS = {right!r}\n{HELPER}")
