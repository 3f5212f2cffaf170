"""The repair search: small edits of the student's own definition, each judged by every hidden check of it.

For a function or class whose checks failed, candidates (repair/edits.py: single edits, cheapest kinds first,
then pairs of them) are run like any student code, in a sandboxed child, and judged here in the parent by the
SAME hidden test functions on the same inputs. A candidate is a repair only when every check of that
definition passes, in a child of its own with the edited file.

Most candidates are wrong, so they are screened first, cheaply: all of them are loaded into one child beside the
student's code, each under a name of its own, and called on the calls whose result was wrong (the diagnosis'
record of what the checks sent, judged against the float64 reference the diagnosis uses). Only those that get
those calls right are run through the checks. The screen only discards; what is shown is what the checks passed.
"""
from __future__ import annotations

import ast
import dataclasses
import itertools
import math
import os
from dataclasses import dataclass
from typing import Callable

from ..grading.student import StudentFile
from ..grading.submissions import SourceFile
from ..diagnosis.compare import agree
from ..diagnosis.probe import Probe, spec_shape
from ..diagnosis.registry import EXACT_ZEROS, canonical, reference
from . import edits as edit_space

SINGLES = 80     # single edits tried per definition, at most
PAIRS = 150      # pairs tried per definition, at most
PAIR_POOL = 24   # pairs are made of the first this many single edits (cheapest kinds first)
UNSCREENED = 12  # candidates run through the checks when no wrong call can screen them (a gradient, say)
SWITCH = "ATTNKIT_REPAIR"   # "off": no repair search (the bench's baseline)


@dataclass(frozen=True)
class Check:
    name: str                              # the test function's name, for the instructor
    run: Callable[[StudentFile], None]     # the hidden test function: raises when the check fails
    failed: bool                           # failed on the student's own code


@dataclass(frozen=True)
class Repair:
    question: str          # the definition repaired
    cell: int              # the cell it is in (0 for a .py file)
    edits: tuple            # edit_space.Edit, in the order of the code
    checks: int            # the number of checks that now all pass
    tried: int             # candidates run


@dataclass(frozen=True)
class NoRepair:
    question: str
    tried: int
    singles: int           # single edits the definition has
    pairs: bool            # whether pairs were tried too


def searching() -> bool:
    return os.environ.get(SWITCH) != "off"


def located(source: SourceFile, name: str) -> tuple[int, str] | None:
    """(cell index, cell text) of the definition of `name` that wins when the file runs: the last one."""
    for index in range(len(source.cells) - 1, -1, -1):
        try:
            tree = ast.parse(source.cells[index])
        except (SyntaxError, ValueError):
            continue
        if edit_space.definition(tree, name) is not None:
            return index, source.cells[index]
    return None


def passes(handle: StudentFile, checks: list[Check]) -> bool:
    """Whether every check passes on this handle's code (any exception from a check is a failure)."""
    for check in checks:
        try:
            check.run(handle)
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException:  # noqa: BLE001 - a StudentFault, a grader's assert on strange output: not a pass
            return False
    return True


def candidates(cell: str, name: str) -> tuple[list[tuple[edit_space.Edit, ...]], list[tuple[edit_space.Edit, ...]]]:
    """The single edits to try, and the pairs (made of the cheapest singles, at two different places)."""
    found = edit_space.singles(cell, name)
    pool = found[:PAIR_POOL]
    pairs = [(a, b) for a, b in itertools.combinations(pool, 2) if a.index != b.index]
    pairs.sort(key=lambda pair: (pair[0].rank + pair[1].rank, pair[0].index, pair[1].index))
    return [(e,) for e in found[:SINGLES]], pairs[:PAIRS]


def wrong_calls(handle: StudentFile, target: str) -> list[Probe]:
    """The calls of `target` the checks made whose result was wrong (or that raised where the reference does
    not), as the diagnosis judges them, smallest first (a call with a size-1 axis last: many ways of writing the
    code agree there)."""
    found = []
    for observation in handle.diagnoser.observations:
        if observation.probe.target != target or (observation.raised and observation.report.get("backward")):
            continue
        try:
            right = right_result(observation.probe)
        except Exception:  # noqa: BLE001 - inputs the reference rejects: this call says nothing here
            continue
        if observation.raised or not agree(canonical(target, observation.output), right,
                                           exact_zeros=target in EXACT_ZEROS).same:
            found.append(observation.probe)
    return sorted(found, key=lambda p: (p.degenerate(), size(p)))


def size(probe: Probe) -> int:
    total = 0
    for value in [*probe.args, *probe.kwargs.values()]:
        shape = spec_shape(value)
        total += math.prod(shape) if shape else 0
    return total


def right_result(probe: Probe) -> object:
    return canonical(probe.target, reference(probe.in_float64()))


def search(server, source: SourceFile, question: str, checks: list[Check],
           handle: StudentFile | None = None, pairs: bool = True) -> Repair | NoRepair | None:
    """The first candidate, single edits before pairs (`pairs`: tried at all), that makes every check of
    `question` pass; NoRepair when none in the budget does; None when the definition is not in the file (nothing
    to edit). With the student's own `handle`, candidates are first screened on a call whose result was wrong
    (cheap: all of them in one child), and only those that get it right are run through the checks."""
    place = located(source, question)
    if place is None:
        return None
    index, cell = place
    ordered = sorted(checks, key=lambda c: not c.failed)   # the failed checks first: most candidates fail there
    singles, doubles = candidates(cell, question)
    doubles = doubles if pairs else []
    probes = wrong_calls(handle, question) if handle is not None else []
    tried = 0
    for phase in (singles, doubles):   # each phase in a screen of its own: pairs are prepared only when needed
        if not phase:
            continue
        if probes:
            screen = Screen(server, source, cell, question, phase, probes[0])
            try:
                hopeful = screen.right(phase)
            finally:
                screen.close()
            tried += len(phase)
        else:
            hopeful = phase[:max(0, UNSCREENED - tried)]
            tried += len(hopeful)
        for chosen in hopeful:
            text = edit_space.apply(cell, question, list(chosen))
            if text is None:
                continue
            edited = dataclasses.replace(source, cells=source.cells[:index] + (text,) + source.cells[index + 1:])
            if confirmed(server, edited, ordered):
                return Repair(question, index, tuple(sorted(chosen, key=lambda e: (e.line, e.index))),
                              len(checks), tried)
    return NoRepair(question, tried, len(singles), bool(doubles))


class Screen:
    """Every candidate loaded at once, each under a name of its own beside the student's code, in one child, and
    called there on a wrong call: a function's candidates in one sequence of calls, a class's one by one (each is
    built, given the probe's parameters, and called)."""

    def __init__(self, server, source: SourceFile, cell: str, question: str, tried: list, probe: Probe) -> None:
        self.probe = probe
        self.function = probe.init is None and not probe.params
        self.names: dict[tuple, str] = {}
        cells = []
        for number, chosen in enumerate(tried):
            name = f"{question}__repair_{number}"
            text = edit_space.renamed(cell, question, list(chosen), name)
            if text is None:
                continue
            self.names[chosen] = name
            if self.function:   # a candidate that raises answers None, and the sequence goes on
                text += (f"\n\n\ndef {name}__screened(*args, **kwargs):\n    try:\n        return {name}(*args, "
                         "**kwargs)\n    except Exception:\n        return None\n")
            cells.append(text)
        self.file = StudentFile(server, dataclasses.replace(source, cells=source.cells + tuple(cells)))
        self.reference = right_result(probe)

    def right(self, tried: list) -> list:
        """The candidates among `tried` that give the right result on the wrong call, in order."""
        names = [self.names[c] for c in tried if c in self.names]
        if self.function:
            outputs = in_sequence(self.file, names, self.probe)
        else:
            outputs = {n: output_of(self.file, n, self.probe) for n in names}
        return [c for c in tried if c in self.names and self.names[c] in outputs
                and right_on(self.probe, outputs[self.names[c]], self.reference)]

    def close(self) -> None:
        self.file.close()


def right_on(probe: Probe, output: object, right: object) -> bool:
    if output is None:
        return False
    try:
        return agree(canonical(probe.target, output), right, exact_zeros=probe.target in EXACT_ZEROS).same
    except Exception:  # noqa: BLE001 - an answer of another kind than the reference's: not right
        return False


def in_sequence(screen: StudentFile, names: list[str], probe: Probe) -> dict[str, object]:
    """{candidate: its output} for each candidate that returned, called in one round trip (the rest again after
    one that raised; one by one after one that crashed the child)."""
    found: dict[str, object] = {}
    start = 0
    while start < len(names):
        calls = [{"target": f"{n}__screened", "args": list(probe.args), "kwargs": dict(probe.kwargs), "layouts": {}, "keep": False,
                  "reuse": None, "judged": True, "grad_args": []} for n in names[start:]]
        try:
            reply = screen._connect().request({"op": "sequence", "calls": calls},
                                              screen.server.config.limits.call_seconds + 0.01 * len(calls))
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException:  # noqa: BLE001 - a crash or hang: the rest one by one, each crash costing one child
            found.update({n: output_of(screen, n, probe) for n in names[start:]})
            break
        outputs = reply.get("outputs") if isinstance(reply.get("outputs"), list) else []
        for name, output in zip(names[start:], outputs):
            found[name] = output
        if reply.get("ok"):
            break
        failed = reply.get("call")
        start += (failed if isinstance(failed, int) and failed >= len(outputs) else len(outputs)) + 1
    return found


def output_of(screen: StudentFile, name: str, probe: Probe) -> object:
    try:
        return screen.run(name, *probe.args, kwargs=dict(probe.kwargs), init=probe.init,
                          params=dict(probe.params) if probe.params else None, record=False,
                          inputs_may_change=True).output
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException:  # noqa: BLE001 - the candidate failed on this call: a None never agrees
        return None


def confirmed(server, source: SourceFile, checks: list[Check]) -> bool:
    """The candidate passes every check, in a child of its own."""
    handle = StudentFile(server, source)
    try:
        return passes(handle, checks)
    finally:
        handle.close()
