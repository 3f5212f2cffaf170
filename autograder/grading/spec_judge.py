"""A declared spec judged: the reference's results on its probes, their float32 bound (derived, never written),
the student's answers checked against them, and a declared mistake named when the student's answers equal the
edited reference's. Trusted: the reference and the mistakes are the master's code, run in the grading process;
the student's code runs only in the sandbox (StudentFile.runs).

The bound of each result is derived from the reference itself, on each probe: its float32 run's distance from its
float64 run (the rounding of this computation), plus the float64 result's move when every float input moves by
one float32 rounding (how much the function amplifies a rounding anywhere before it), taken as a multiple of
u * (|result| + its root mean square) and widened to the probe's worst multiple, times FACTOR. A correct float32
code written otherwise rounds elsewhere, by amounts of the same order; `make assignments` refuses a spec whose
declared mistakes this bound lets through (authoring/spec_render.py), so it is never too loose to catch them.
"""
from __future__ import annotations

from functools import cached_property

import torch

from . import expect, tolerance
from .calls import describe_value
from .faults import NotAttempted, StudentFault
from .spec_callees import callee_explained
from .spec_space import Declaration, Probe, draws, edges
from .student import as_tensor, run_request
from ..results import Diagnosis

FACTOR = 8.0


def compiled(setup: str, source: str, name: str, helpers: dict[str, str] | None = None) -> dict:
    """The namespace in which `source` defines `name`, run after the students' imports (`setup`) and the master's
    other exercises it calls (`helpers`, {name: their reference}), as a student's file holds them all."""
    namespace: dict = {"__name__": f"spec_{name}"}
    for helper, code in (helpers or {}).items():
        exec(compile(f"{setup}\n\n{code}", f"<master: {helper}>", "exec"), namespace)  # noqa: S102 - the master's code
    exec(compile(f"{setup}\n\n{source}", f"<master: {name}>", "exec"), namespace)  # noqa: S102 - the master's code
    return namespace


def built(cls, init: tuple):
    """An instance of the master's class; its own random initialisation leaves the process's generator as it was
    (every value that matters is set from a seed)."""
    with torch.random.fork_rng(devices=[]):
        return cls(*init)


def _cast(value, dtype):
    return value.to(dtype) if isinstance(value, torch.Tensor) and value.is_floating_point() else value


def _nudged(value, generator):
    """A float input moved by one float32 rounding, each entry up or down."""
    if not (isinstance(value, torch.Tensor) and value.is_floating_point()):
        return value
    signs = torch.randint(0, 2, value.shape, generator=generator).double() * 2 - 1
    return value.double() * (1 + tolerance.U * signs)


def _tensors(output) -> list:
    return list(output) if isinstance(output, (tuple, list)) else [output]


class Declared:
    """One exercise's declaration with its reference and its mistakes' edited references."""

    def __init__(self, spec: Declaration, setup: str, reference: str, mistakes: dict[str, str],
                 helpers: dict[str, str] | None = None) -> None:
        self.spec = spec
        self.namespace = compiled(setup, reference, spec.exercise, helpers)
        self.reference = self.namespace[spec.exercise]
        self.callees = tuple(helpers or ())   # other exercises of the master that the reference calls
        self.mistakes = {m.id: compiled(setup, mistakes[m.id], spec.exercise, helpers)[spec.exercise]
                         for m in spec.mistakes if m.id in mistakes}
        self.says = {m.id: m.says for m in spec.mistakes}
        self.is_class = isinstance(self.reference, type)
        self._references: dict[str, list] = {}
        self._params: dict[tuple, dict] = {}

    @cached_property
    def groups(self) -> dict[str, list[Probe]]:
        return {"edges": edges(self.spec), "draws": draws(self.spec)}

    # --- running the master's code ------------------------------------------------------------------------
    def params(self, probe: Probe) -> dict:
        """A class's parameters for this probe: seeded, each scaled by 1/sqrt(its last size), by name."""
        if not self.is_class:
            return {}
        key = (probe.seed, probe.init)
        if key in self._params:
            return self._params[key]
        instance = built(self.reference, probe.init)
        generator = torch.Generator().manual_seed(probe.seed + 7)
        self._params[key] = {name: torch.randn(tuple(p.shape), generator=generator)
                             * max(p.shape[-1] if p.dim() else 1, 1) ** -0.5
                             for name, p in instance.named_parameters()}
        return self._params[key]

    def run(self, function, probe: Probe, dtype, params: dict | None = None, args: tuple | None = None):
        args = tuple(_cast(a, dtype) for a in (probe.args if args is None else args))
        with torch.no_grad():
            if not self.is_class:
                return function(*args)
            instance = built(function, probe.init).to(dtype).eval()
            named = dict(instance.named_parameters())
            for name, value in (self.params(probe) if params is None else params).items():
                named[name].copy_(value.to(dtype))
            return instance(*args)

    def expected(self, function, probe: Probe) -> list[tuple[torch.Tensor, torch.Tensor]]:
        """[(float64 result, its float32 bound)] for each tensor `function` returns on `probe`."""
        params = self.params(probe)
        high = _tensors(self.run(function, probe, torch.float64, params))
        low = _tensors(self.run(function, probe, torch.float32, params))
        generator = torch.Generator().manual_seed(probe.seed + 11)
        nudged_args = tuple(_nudged(a, generator) for a in probe.args)
        nudged_params = {n: _nudged(p, generator) for n, p in params.items()}
        moved = _tensors(self.run(function, probe, torch.float64, nudged_params, nudged_args))
        pairs = []
        for h, lo, m in zip(high, low, moved):
            if not h.is_floating_point() or self.spec.result == "exact":
                pairs.append((h, torch.zeros(h.shape, dtype=torch.float64)))
                continue
            h = h.double()
            finite = h.nan_to_num(0.0, 0.0, 0.0)
            scale = tolerance.U * (finite.abs() + finite.pow(2).mean().sqrt()) + tolerance.TINY
            error = ((lo.double() - h).abs() + (m.double() - h).abs()).nan_to_num(0.0, 0.0, 0.0)
            ratio = max(1.0, (error / scale).max().item()) if error.numel() else 1.0
            pairs.append((h, FACTOR * ratio * scale))
        return pairs

    def reference_results(self, group: str) -> list:
        """The reference's (result, bound) pairs on each probe of `group`: computed once per grading process."""
        if group not in self._references:
            self._references[group] = [self.expected(self.reference, p) for p in self.groups[group]]
        return self._references[group]

    # --- judging ---------------------------------------------------------------------------------------------
    def describe(self, probe: Probe) -> str:
        names = [a.name for a in self.spec.args]
        call = ", ".join(describe_value(n, v) for n, v in zip(names, probe.args))
        head = f"{self.spec.exercise}({', '.join(repr(v) for v in probe.init)})" if self.is_class else self.spec.exercise
        return f"{head}({call}) [{probe.label}]"

    def compare(self, got, expected: list, what: str) -> None:
        """Raise a StudentFault stating the symptom when `got` is not the expected result."""
        if len(expected) > 1:
            if not isinstance(got, (tuple, list)) or len(got) != len(expected):
                raise StudentFault(f"{what} returned {type(got).__name__}; expected {len(expected)} tensors.")
            for number, (one, pair) in enumerate(zip(got, expected), 1):
                self.compare(one, [pair], f"{what}, result {number}")
            return
        want, bound = expected[0]
        hint = self.spec.hint
        if self.spec.result == "exact" or not want.is_floating_point():
            tensor = as_tensor(got, what)
            if tuple(tensor.shape) != tuple(want.shape):
                raise StudentFault(f"{what} has shape {tuple(tensor.shape)}, expected {tuple(want.shape)}. {hint}".strip())
            if not torch.equal(tensor.to(want.dtype), want):
                wrong = int((tensor.to(want.dtype) != want).sum())
                raise StudentFault(f"{what}: {wrong} of {want.numel()} entries differ from the expected ones. {hint}".strip())
            return
        expect.within(got, (want, bound), what, hint)

    def agrees(self, got, expected: list) -> bool:
        """`got` is `expected`, NaN where it is NaN (a mistake's NaN is evidence too)."""
        got = _tensors(got)
        if len(got) != len(expected):
            return False
        matched = []
        for one, (want, bound) in zip(got, expected):
            if isinstance(one, torch.Tensor) and want.is_floating_point() and tuple(one.shape) == tuple(want.shape):
                lost = want.isnan()
                if not torch.equal(one.isnan(), lost):
                    return False
                one, want = one.masked_fill(lost, 0.0), want.masked_fill(lost, 0.0)
            matched.append((one, (want, bound)))
        try:
            for one, pair in matched:
                self.compare(one, [pair], "result")
        except StudentFault:
            return False
        return True

    def requests(self, group: str) -> list[dict]:
        return [run_request(self.spec.exercise, *p.args, init=list(p.init) if self.is_class else None,
                            params=self.params(p)) for p in self.groups[group]]

    def judge(self, student, group: str) -> None:
        """The student's answers on every probe of `group`, in one round trip, each against the reference."""
        probes, expected = self.groups[group], self.reference_results(group)
        try:
            replies = student.runs(self.requests(group))
        except StudentFault as fault:
            if not isinstance(fault, NotAttempted) and not fault.diagnoses:
                fault.diagnoses = self.named_by_error(group, str(fault))
            raise callee_explained(self, student, group, fault) from None
        for probe, want, reply in zip(probes, expected, replies):
            student.judging(reply)
            try:
                self.compare(reply.output, want, f"{self.describe(probe)}")
            except StudentFault as fault:
                fault.diagnoses = tuple(fault.diagnoses) + self.named(group, [r.output for r in replies])
                raise callee_explained(self, student, group, fault) from None

    def named(self, group: str, outputs: list) -> tuple[Diagnosis, ...]:
        """The declared mistake whose edited reference gives the student's answers on every probe it answers."""
        found = []
        for mistake, function in self.mistakes.items():
            compared = 0
            for probe, got in zip(self.groups[group], outputs):
                try:
                    want = self.expected(function, probe)
                except Exception:  # noqa: BLE001 - the mistaken code raises here: no evidence either way
                    continue
                if not self.agrees(got, want):
                    break
                compared += 1
            else:
                if compared:
                    found.append(Diagnosis(mistake, self.says[mistake],
                                           f"your results equal, to float32 rounding, those of this mistake on all "
                                           f"{compared} calls of this check."))
        return tuple(found) if len(found) == 1 else ()

    def named_by_error(self, group: str, said: str) -> tuple[Diagnosis, ...]:
        """The declared mistake that raises, at the first probe where it raises, the very error the student's code
        raised (type and message, sizes and all): `K = self.W_K(x_q)` fails as soon as T_q differs from T_k."""
        found = []
        for mistake, function in self.mistakes.items():
            for probe in self.groups[group]:
                try:
                    self.run(function, probe, torch.float32)
                except Exception as error:  # noqa: BLE001 - the mistake's own error, compared with the student's
                    first = (str(error).splitlines() or [""])[0].strip()
                    error_text = f"{type(error).__name__}: {first}"
                    if first and error_text in said:
                        found.append(Diagnosis(mistake, self.says[mistake],
                                               f"your code raised {error_text}, the very error this mistake raises "
                                               f"on {self.describe(probe)}, the first call on which it raises."))
                    break
        return tuple(found) if len(found) == 1 else ()

    # --- the declaration checked (make assignments) -----------------------------------------------------------
    def refusals(self) -> list[str]:
        """Why the declaration cannot grade: the reference fails its own space, a mistake passes a group's checks,
        or two mistakes give the same results on every probe of a group. [] when it can."""
        name = self.spec.exercise
        for group, probes in self.groups.items():
            for probe in probes:
                try:
                    self.expected(self.reference, probe)
                except NameError as error:
                    return [undefined(name, error)]
                except Exception as error:  # noqa: BLE001 - the master's own code: said to its author
                    return [f"the reference {name} raises {type(error).__name__} ({error}) on the {group} probe "
                            f"'{probe.label}': the declared space is wider than the reference handles."]
        results = {}
        for mistake, function in self.mistakes.items():
            missed = []
            for group, probes in self.groups.items():
                outputs = []
                for probe in probes:
                    try:
                        outputs.append(_tensors(self.run(function, probe, torch.float32)))
                    except Exception:  # noqa: BLE001 - a mistake may raise where the reference does not
                        outputs.append(None)
                results[mistake, group] = outputs
                wants = self.reference_results(group)
                if probes and all(o is not None and self.agrees(o if len(o) > 1 else o[0], w)
                                  for o, w in zip(outputs, wants)):
                    missed.append(group)
            if missed:
                return [self._uncaught(mistake, missed)]
        for first, second in _pairs(list(self.mistakes)):
            for group, probes in self.groups.items():
                if probes and all(a is not None and b is not None and self.agrees(a if len(a) > 1 else a[0],
                                                                                   self.expected(self.mistakes[second], p))
                                  for a, b, p in zip(results[first, group], results[second, group], probes)):
                    return [f"mistakes {first} and {second} of {name} give the same results on every {group} probe, "
                            "so feedback could not tell them apart: drop one or widen the spec."]
        return []

    def _uncaught(self, mistake: str, missed: list) -> str:
        return _missed_sentence(self.spec.exercise, mistake, missed, self.groups)


def _missed_sentence(name: str, mistake: str, missed: list, groups: dict) -> str:
    """The refusal of a mistake some check cannot catch: which check, and why (its probes never reach an input on
    which the edit changes the result)."""
    checks = [g for g, probes in groups.items() if probes]
    counted = {"edges": f"{len(groups['edges'])} edge probes", "draws": f"{len(groups['draws'])} seeded draws"}
    if set(checks) <= set(missed):
        return (f"mistake {mistake} of {name} gives the reference's results on every one of its "
                f"{' and '.join(missed)} probes, so no check can catch it: choose another edit or widen the spec.")
    group = missed[0]
    other = next(g for g in checks if g not in missed)
    advice = "raise `draws`, widen the spec or choose another edit" if group == "draws" else \
             "widen the spec or choose another edit"
    return (f"mistake {mistake} of {name} gives the reference's results on every one of its {group} probes: none of "
            f"its {counted[group]} reaches an input on which the edit changes the result, so the {group} check would "
            f"give it full marks (only the {other} check catches it); {advice}.")


def undefined(exercise: str, error: NameError) -> str:
    """The one sentence for a reference that uses a name nothing defines."""
    return (f"the reference of {exercise} uses the name '{error.name}', which neither the setup cell nor an exercise "
            "of the master defines: import it in the setup cell, or write it as an exercise of this master (a "
            "reference may call the master's other exercises).")


def _pairs(items: list) -> list[tuple]:
    return [(a, b) for i, a in enumerate(items) for b in items[i + 1:]]
