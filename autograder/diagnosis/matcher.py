"""Name a mistake only when its model reproduces what the student's code did, and nothing contradicts it.

A Diagnoser holds the observations of one student's file (every call the graders made, in order). Nothing
is computed while the student passes. When a check fails, `explain(since)` looks at the calls made since
the check started: a mistake is named when

- its model reproduces (compare.agree) a call whose result was wrong, and
- no call of the same target contradicts it: wherever the mistake would have changed the result, the
  student's result is what the mistake gives (a call where the student is right but the mistake would
  not be, or where the code raised but the mistake would not, rules it out).

Several mistakes that pass both tests are all named; none: no cause is given (symptoms.py says what is wrong).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..results import Diagnosis
from .catalog import MISTAKES
from .compare import agree, gap
from .model import Model
from .pipeline import NotApplicable
from .probe import Observation
from . import registry
from .search import Call, Search, describe_factor, named

SUPPORT, CONTRADICT, NEUTRAL = "support", "contradict", "neutral"
BLIND = "blind"  # the model cannot say what the mistake gives on this call (pipeline.NotApplicable)
SHOWS_ON_SIZE_ONE = {"bare-squeeze"}


@dataclass(frozen=True)
class Verdict:
    kind: str
    error: float = 0.0
    note: str = ""


@dataclass
class Case:
    probe: object          # the float64 probe
    output: object         # the student's result, as the graders judge it (registry.canonical)
    reference: object      # the right result, or None if the reference could not run (then nothing is judged)
    deviates: bool


class Diagnoser:
    def __init__(self, scope: registry.Scope = registry.Scope()) -> None:
        """`scope`: the built-in targets of the student's assignment (registry.Scope); a call of any other name is
        judged by nothing here, so another assignment's exercise of the same name never gets its mistakes."""
        self.observations: list[Observation] = []
        self.scope = scope
        self._models_for = scope.models_for
        self._reference = scope.reference
        self._canonical = scope.canonical
        self._cases: dict[int, Case] = {}
        self._verdicts: dict[tuple[int, int], Verdict] = {}
        self._search = Search()

    def record(self, observation: Observation) -> None:
        self.observations.append(observation)

    def __len__(self) -> int:
        return len(self.observations)

    def right(self, index: int) -> bool:
        """Did that call return the right result (as the graders judge it)?"""
        case = self._case(index)
        return case.reference is not None and not case.deviates

    def explain(self, since: int = 0) -> tuple[Diagnosis, ...]:
        """The mistakes that explain a wrong result among the observations from index `since` on."""
        found: dict[str, Diagnosis] = {}
        for diagnoses in self.explain_by_target(since).values():
            for diagnosis in diagnoses:
                found.setdefault(diagnosis.mistake, diagnosis)
        return tuple(found.values())

    def explain_by_target(self, since: int = 0) -> dict[str, list[Diagnosis]]:
        """explain(), grouped by the target whose calls show each mistake."""
        window = [i for i in range(len(self.observations) - 1, since - 1, -1) if self._case(i).deviates]
        by_target: dict[str, list[Diagnosis]] = {}
        for target in dict.fromkeys(self.observations[i].probe.target for i in window):
            mine = [i for i in window if self.observations[i].probe.target == target]
            history = [i for i, o in enumerate(self.observations) if o.probe.target == target and i not in mine]
            findings: dict[str, Diagnosis] = {}
            found_models = []
            for model in self._models_for(target):
                if model.mistake in findings:
                    continue
                support = self._support(model, mine)  # newest first: most models are ruled out at once
                if support and all(self._verdict(i, model).kind != CONTRADICT for i in history) and \
                        self._telling(model, mine + history):
                    findings[model.mistake] = Diagnosis(model.mistake, MISTAKES[model.mistake],
                                                        self._evidence(*support[-1], len(support)))
                    found_models.append(model)
            if not findings or (self.scope.pipeline_for(target) and self._unexplained(found_models, mine + history)):
                # a wrong result that no named model reproduces: the models may match by coincidence where they
                # do; what explains every call (the search) is named instead, and else nothing
                findings = self._searched(target, mine)
            if findings:
                by_target[target] = list(findings.values())
        return by_target

    def _searched(self, target: str, mine: list[int]) -> dict[str, Diagnosis]:
        """No single mistake explains this target: the simplest combination of stage variants that reproduces
        every call of it (search.py), named only in the mistakes all such combinations share."""
        indices = [i for i, o in enumerate(self.observations) if o.probe.target == target
                   and self._case(i).reference is not None and not (o.raised and o.report.get("backward"))]
        calls = [Call(self._case(i).probe, self._case(i).output, self.observations[i].raised, self._case(i).deviates)
                 for i in indices]
        explanations = self._search.simplest(target, calls, self.scope.exact_zeros(target))
        proven = named(explanations)
        if not proven:
            return {}
        shown = self.observations[mine[0]]
        together = sorted(proven)
        findings = {}
        for mistake in together:
            others = [MISTAKES[m] for m in together if m != mistake]
            text = f"your result on {shown.probe.describe()} is what code gives with this mistake"
            if others:
                text += f" together with {'another' if len(others) == 1 else 'others'} ({'; '.join(others)})"
            text += f", and so are all {len(calls)} calls of {target} the checks made"
            if others:
                text += "; no single mistake reproduces them"
            factor = describe_factor(explanations[0]) if mistake == "scale-wrong-factor" else ""
            findings[mistake] = Diagnosis(mistake, MISTAKES[mistake], text + (f": {factor}" if factor else "") + ".")
        return findings

    def _unexplained(self, models: list[Model], indices: list[int]) -> bool:
        """Is there a wrong result (not an exception) among these calls that none of the models reproduces?"""
        return any(self._case(i).deviates and not self.observations[i].raised
                   and all(self._verdict(i, m).kind == NEUTRAL for m in models) for i in indices)

    def _telling(self, model: Model, indices: list[int]) -> bool:
        """Some call that the model reproduces is not degenerate (Probe.degenerate): evidence before naming.
        A mistake that shows only on a size-1 axis (a bare squeeze()) is told by those calls themselves."""
        if model.mistake in SHOWS_ON_SIZE_ONE:
            return True
        return any(not self.observations[i].probe.degenerate() and self._verdict(i, model).kind == SUPPORT
                   for i in indices)

    def held_back(self, target: str, since: int = 0) -> bool:
        """Does a model of `target` reproduce this check's wrong calls only where they are degenerate? Then a
        wider call (Probe.widened) is what would tell."""
        mine = [i for i in range(since, len(self.observations))
                if self.observations[i].probe.target == target and self._case(i).deviates]
        return bool(mine) and all(self.observations[i].probe.degenerate() for i in mine) and any(
            self._support(model, mine) for model in self._models_for(target))

    def last_wrong(self, target: str, since: int = 0) -> Observation | None:
        """The newest call of `target` from `since` on whose result was wrong."""
        for index in range(len(self.observations) - 1, since - 1, -1):
            if self.observations[index].probe.target == target and self._case(index).deviates:
                return self.observations[index]
        return None

    def _support(self, model: Model, indices: list[int]) -> list[tuple[int, Verdict]]:
        """The calls among `indices` that the model reproduces; none if one of them contradicts it."""
        found = []
        for index in indices:
            verdict = self._verdict(index, model)
            if verdict.kind == CONTRADICT:
                return []
            if verdict.kind == SUPPORT:
                found.append((index, verdict))
        return found

    # --- the cached steps --------------------------------------------------------------------------
    def _case(self, index: int) -> Case:
        if index not in self._cases:
            observation = self.observations[index]
            probe = observation.probe.in_float64()
            output = None if observation.raised else self._canonical(probe.target, observation.output)
            try:
                reference = self._canonical(probe.target, self._reference(probe))
            except Exception:  # noqa: BLE001 - an unknown target or inputs the reference rejects: judge nothing
                self._cases[index] = Case(probe, output, None, False)
                return self._cases[index]
            deviates = observation.raised or not self._agree(probe.target, output, reference).same
            self._cases[index] = Case(probe, output, reference, deviates)
        return self._cases[index]

    def _verdict(self, index: int, model: Model) -> Verdict:
        key = (index, id(model))
        if key not in self._verdicts:
            self._verdicts[key] = self._judge(self.observations[index], self._case(index), model)
        return self._verdicts[key]

    def _judge(self, observation: Observation, case: Case, model: Model) -> Verdict:
        if case.reference is None or (observation.raised and observation.report.get("backward")):
            return Verdict(NEUTRAL)  # nothing to judge, or a failure that may be in the backward pass
        try:
            predicted, note = model.run(case.probe, case.output)
            predicted = self._canonical(model.target, predicted)
        except NotApplicable:
            return Verdict(BLIND)
        except Exception:  # noqa: BLE001 - the mistaken code would raise here
            return Verdict(NEUTRAL if observation.raised else CONTRADICT)
        if observation.raised:
            return Verdict(NEUTRAL if self._agree(model.target, predicted, case.reference).same else CONTRADICT)
        found = self._agree(model.target, case.output, predicted)
        if found.same:  # a right result the mistake also gives shows nothing; a wrong one is evidence
            return Verdict(SUPPORT, found.error, note) if case.deviates else Verdict(NEUTRAL)
        if not case.deviates:
            return Verdict(CONTRADICT)  # the code is right where the mistake would show
        return Verdict(NEUTRAL if self._agree(model.target, predicted, case.reference).same else CONTRADICT)

    def _agree(self, target: str, got: object, want: object):
        return agree(got, want, exact_zeros=self.scope.exact_zeros(target))

    def _evidence(self, index: int, verdict: Verdict, count: int) -> str:
        case = self._cases[index]
        closeness = "exactly" if verdict.error == 0 else f"to within {verdict.error:.1g}"
        text = f"on {self.observations[index].probe.describe()}, your result equals what this mistake gives {closeness}"
        if verdict.note:
            text += f" ({verdict.note})"
        text += f"; the right result {gap(case.output, case.reference)}"
        if count > 1:
            text += f"; the same holds on {count - 1} more call{'s' if count > 2 else ''} of this check"
        return text + "."


def diagnose(observations: list[Observation]) -> tuple[Diagnosis, ...]:
    """All the mistakes that explain a wrong result among these observations (one student's calls)."""
    diagnoser = Diagnoser()
    for observation in observations:
        diagnoser.record(observation)
    return diagnoser.explain()
