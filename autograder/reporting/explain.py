"""One fault, one explanation: what each failed test of one student says about its diagnosed mistakes.

A mistake is explained once, at its *anchor*: the first failed test that names it, preferring tests the
student can see (visibility "visible") over ones released later or never. Every other failed test that
names it points back to the anchor and says how many points were lost there. Feedback (Markdown) and
Gradescope's results.json both render from `plan_explanations`, so they always agree.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..results import FAILED, Diagnosis, StudentResult, TestResult
from .repairs import repair_lines


SHOWN_FIRST = {"visible": 0, "hidden": 2}  # released later (after_due_date, after_published): 1


@dataclass(frozen=True)
class Mistake:
    """A diagnosed mistake of one student, with every failed test that names it."""
    diagnosis: Diagnosis             # as the anchor test gave it (its evidence is the one shown)
    anchor: TestResult
    tests: tuple[TestResult, ...]    # in test order, the anchor among them

    @property
    def points_lost(self) -> float:
        return round(sum(t.points_lost for t in self.tests), 6)


@dataclass(frozen=True)
class Plan:
    mistakes: tuple[Mistake, ...]            # in the order their anchors appear
    same_error: dict = field(default_factory=dict)  # id(test) -> earlier shown test with the same undiagnosed message

    def explained_at(self, test: TestResult) -> tuple[Mistake, ...]:
        return tuple(m for m in self.mistakes if m.anchor is test)

    def pointing_back(self, test: TestResult) -> tuple[Mistake, ...]:
        return tuple(m for m in self.mistakes if m.anchor is not test and any(t is test for t in m.tests))

    def nearby(self, test: TestResult) -> tuple[Mistake, ...]:
        """For a failure nothing explains: the mistakes found in other checks of the same question (the same
        function or class), which may well be what fails it too."""
        if test.diagnoses:
            return ()
        return tuple(m for m in self.mistakes if m.anchor.question == test.question and m.anchor is not test)

    def repeated_from(self, test: TestResult) -> TestResult | None:
        return self.same_error.get(id(test))


def diagnosed_failures(result: StudentResult) -> list[TestResult]:
    return [t for t in result.tests if t.status == FAILED and t.attempted and t.diagnoses]


def plan_explanations(result: StudentResult) -> Plan:
    failures = diagnosed_failures(result)
    by_mistake: dict[tuple[str, str], list[TestResult]] = {}
    for test in failures:   # a mistake is its id and its sentence: two masters may give one id two meanings
        for diagnosis in test.diagnoses:
            by_mistake.setdefault((diagnosis.mistake, diagnosis.title), []).append(test)
    mistakes = []
    for key, tests in by_mistake.items():
        anchor = min(tests, key=lambda t: SHOWN_FIRST.get(t.visibility, 1))  # min keeps test order on ties
        diagnosis = next(d for d in anchor.diagnoses if (d.mistake, d.title) == key)
        mistakes.append(Mistake(diagnosis, anchor, tuple(tests)))
    order = {id(t): i for i, t in enumerate(result.tests)}
    return Plan(tuple(sorted(mistakes, key=lambda m: order[id(m.anchor)])), repeated_errors(result))


def repeated_errors(result: StudentResult) -> dict:
    """An undiagnosed failure whose message an earlier shown failure already gave (the same exception from the
    same line, say) is stated once: the later ones point to the first."""
    first: dict[str, TestResult] = {}
    found = {}
    shown = sorted((t for t in result.tests if t.status == FAILED and t.attempted and not t.diagnoses and t.output),
                   key=lambda t: SHOWN_FIRST.get(t.visibility, 1))
    for test in shown:
        if test.output in first:
            found[id(test)] = first[test.output]
        else:
            first[test.output] = test
    return found


def label(test: TestResult) -> str:
    return f"{test.question}: {test.name}"


def sentence(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "!", "?")) else text + "."


def count(value: float, noun: str) -> str:
    return f"{value:g} {noun}{'' if value == 1 else 's'}"


def points(value: float) -> str:
    return count(value, "point")


def failure_lines(test: TestResult, plan: Plan, show_edit: bool = True) -> list[str]:
    """What a failed test tells the student, as plain lines: the symptom, then each mistake explained here
    (with where else it cost points), then a pointer for each mistake explained at another test, then the
    question's repair where this test carries it (reporting/repairs.py; `show_edit`: the edit itself, else where
    it is). A test whose every mistake is explained elsewhere shows only the pointers: the explanation covers its
    symptom."""
    here, elsewhere = plan.explained_at(test), plan.pointing_back(test)
    earlier = plan.repeated_from(test)
    if earlier is not None and earlier.visibility != "hidden":
        lines = [f"The same message as in \"{label(earlier)}\", stated there; {points(test.points_lost)} lost here."]
    else:
        lines = [] if elsewhere and not here else [test.output or "The check failed."]
    for mistake in plan.nearby(test):
        lines.append(f"No cause was found for this check itself; \"{label(mistake.anchor)}\" found a mistake in the "
                     f"same part ({mistake.diagnosis.title}), which may be what fails it too.")
    if len(test.diagnoses) > 1:
        lines.append("Your result matches more than one known mistake; this check cannot tell them apart, "
                     "so each is named:")
    for mistake in here:
        lines.append(f"Mistake: {sentence(mistake.diagnosis.title)} Evidence: {sentence(mistake.diagnosis.evidence)}")
        others = [t for t in mistake.tests if t is not test]
        named = [f"{label(t)} ({points(t.points_lost)})" for t in others if t.visibility != "hidden"]
        unnamed = [t for t in others if t.visibility == "hidden"]  # never name a hidden check to the student
        if unnamed:
            named.append(f"{count(len(unnamed), 'hidden check')} "
                         f"({points(round(sum(t.points_lost for t in unnamed), 6))})")
        if others:
            lines.append(f"The same mistake also fails: {'; '.join(named)}. It costs {points(mistake.points_lost)} "
                         f"in {len(mistake.tests)} checks.")
    for mistake in elsewhere:
        lines.append(f"Same mistake as in \"{label(mistake.anchor)}\" ({mistake.diagnosis.title}), explained "
                     f"there; {points(test.points_lost)} lost here.")
    return lines + repair_lines(test, show_edit)
