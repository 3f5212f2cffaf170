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

import torch

from ..grading.student import StudentFile
from ..grading.submissions import SourceFile
from ..diagnosis.compare import agree
from ..diagnosis.probe import Probe, spec_shape
from ..diagnosis.registry import EXACT_ZEROS, canonical, reference
from . import candidates as edit_space  # the candidates of one definition, listed and made
from .budget import Budget, budget_setting  # noqa: F401 - one student's budget
from .edits import definition
from .pairs import PAIR_POOL, PAIRS, pairs_of  # noqa: F401 - which pairs are tried, in which order

SINGLES = 96     # single edits tried per definition, at most
RAISED = 1e6      # how far from the right result a call that raised counts, for ranking pairs
UNSCREENED = 12   # candidates run through the checks when no wrong call can screen them (a gradient, say)
CONFIRMED = 3     # candidates run through the checks per phase, at most: each costs the part's whole grading
SWITCH = "ATTNKIT_REPAIR"   # "unnamed" (default), "all" or "off" (the bench's baseline): see mode()

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
    made_too: tuple = ()    # other parts' repairs made in the file first (repair/joint.py): these edits need them


@dataclass(frozen=True)
class NoRepair:
    question: str
    tried: int
    singles: int           # single edits the definition has
    pairs: bool            # whether pairs were tried too
    stopped: bool = False  # the student's budget ran out before every candidate planned was tried


def mode() -> str:
    """"unnamed" (the default): a search for each failed question with a failure no diagnosis names; "all": for
    named failures too (they already have their cause; the search there only adds the line, at the cost of running
    the question's checks again: the catalogue's bench asks for it); "off": none."""
    chosen = os.environ.get(SWITCH, "unnamed")
    return chosen if chosen in ("off", "all") else "unnamed"


def searching() -> bool:
    return mode() != "off"


def located(source: SourceFile, name: str) -> tuple[int, str] | None:
    """(cell index, cell text) of the definition of `name` that wins when the file runs: the last one."""
    for index in range(len(source.cells) - 1, -1, -1):
        try:
            tree = ast.parse(source.cells[index])
        except (SyntaxError, ValueError):
            continue
        if definition(tree, name) is not None:
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


def wrong_calls(handle: StudentFile, target: str) -> list[tuple[Probe, object]]:
    """(call, what the student's code gave) for the calls of `target` the checks made whose result was wrong (or
    that raised where the reference does not), as the diagnosis judges them: the smallest first (one with a
    size-1 axis last: many ways of writing the code agree there), then the first and the last made."""
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
            found.append((observation.probe, None if observation.raised else observation.output))
    if not found:
        return []
    smallest = min(found, key=lambda pair: (pair[0].degenerate(), size(pair[0])))
    chosen = [smallest]
    for pair in (found[0], found[-1]):
        if all(pair is not other for other in chosen):
            chosen.append(pair)
    return chosen


def size(probe: Probe) -> int:
    total = 0
    for value in [*probe.args, *probe.kwargs.values()]:
        shape = spec_shape(value)
        total += math.prod(shape) if shape else 0
    return total


def right_result(probe: Probe) -> object:
    return canonical(probe.target, reference(probe.in_float64()))


def search(server, source: SourceFile, question: str, checks: list[Check],
           handle: StudentFile | None = None, pairs: bool = True,
           budget: Budget | None = None) -> Repair | NoRepair | None:
    """The first candidate, single edits before pairs (`pairs`: tried at all), that makes every check of
    `question` pass; NoRepair when none in the budget does (`stopped` when the student's `budget` ran out first);
    None when the definition is not in the file (nothing to edit). With the student's own `handle`, candidates
    are first screened on the calls whose result was wrong (cheap: all of them in one child), and only those that
    get them right are run through the checks; pairs are then made of the single edits that came closest to the
    right result there."""
    place = located(source, question)
    if place is None:
        return None
    budget = budget or Budget()
    index, cell = place
    ordered = sorted(checks, key=lambda c: not c.failed)   # the failed checks first: most candidates fail there
    singles = edit_space.singles(cell, question)[:SINGLES]
    wrong = wrong_calls(handle, question) if handle is not None else []
    tried, cut = 0, False
    near, partners, partial = singles[:PAIR_POOL], singles, []
    for phase in ("singles", "pairs"):
        if phase == "pairs" and not pairs:
            break
        batch = [(e,) for e in singles] if phase == "singles" else pairs_of(near, partners, partial)
        if not batch:
            continue
        if budget.spent():
            cut = True
            break
        if wrong:
            cut = cut or len(batch) > budget.left
            batch = batch[:budget.left]
            screen = Screen(server, source, cell, question, batch, wrong, budget)
            try:
                hopeful, closeness = screen.right(batch)
            finally:
                screen.close()
            tried += len(batch)
            budget.take(len(batch))
            if phase == "singles":   # pairs of the edits that came closest, each alone, to the right result
                near = [c[0] for c in sorted((c for c in batch if c in closeness), key=lambda c: closeness[c])]
                near = near[:PAIR_POOL]
                # the other edit of a pair: first those that changed the wrong calls' results at all, cheapest first
                partners = [c[0] for c in batch if c in screen.moved] + [c[0] for c in batch if c not in screen.moved]
                # an edit that made some wrong calls right alone fixed one slip: its pairs look for the other
                partial = [c[0] for c in screen.partial]
        else:
            wanted = max(0, UNSCREENED - tried)
            cut = cut or min(wanted, len(batch)) > budget.left
            hopeful = batch[:min(wanted, budget.left)]
            tried += len(hopeful)
            budget.take(len(hopeful))
        for chosen in hopeful[:CONFIRMED]:
            if budget.out_of_time():
                break
            text = edit_space.apply(cell, question, list(chosen))
            if text is None:
                continue
            edited = dataclasses.replace(source, cells=source.cells[:index] + (text,) + source.cells[index + 1:])
            if confirmed(server, edited, ordered, budget):
                shown = edit_space.shown_apart(cell, question, list(chosen))
                return Repair(question, index, tuple(sorted(shown, key=lambda e: (e.line, e.index))),
                              len(checks), tried)
        if budget.out_of_time():   # a screen or a check cut short: what it did not answer was not tried
            cut = True
            break
    return NoRepair(question, tried, len(singles), pairs, stopped=cut)


class Screen:
    """Every candidate loaded at once, each under a name of its own beside the student's code, in one child, and
    called there on the wrong calls: a function's candidates in one sequence of calls per call, a class's one by
    one (each is built, given the probe's parameters, and called)."""

    def __init__(self, server, source: SourceFile, cell: str, question: str, tried: list,
                 wrong: list[tuple[Probe, object]], budget: Budget) -> None:
        self.wrong = wrong
        self.function = all(p.init is None and not p.params for p, _ in wrong)
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
        self.moved: set = set()
        self.file = budget.bound(StudentFile(server, dataclasses.replace(source, cells=source.cells + tuple(cells))))
        self.references = [right_result(p) for p, _ in wrong]

    def right(self, tried: list) -> tuple[list, dict]:
        """The candidates among `tried` that give the right result on every wrong call, in order; and for those
        that came closer to the right result than the student's code on some wrong call without going further
        from it on another, how much closer in all (the smaller, the closer). A function's candidates are run on
        every wrong call; a class's on the first, then on the others only while they are right."""
        alive = [c for c in tried if c in self.names]
        gains: dict = {c: [] for c in alive}
        self.moved = set()   # the candidates whose result differs from the student's on some wrong call
        self.partial: list = []   # partial repairs (below), the likeliest first
        right, some, unraised = set(alive), set(), set()
        for number, ((probe, own), reference) in enumerate(zip(self.wrong, self.references)):
            asked = alive if self.function or number == 0 else [c for c in alive if c in right]
            names = [self.names[c] for c in asked]
            outputs = in_sequence(self.file, names, probe) if self.function else one_by_one(self.file, names, probe)
            before = distance(own, reference, None)
            for c in asked:
                output = outputs.get(self.names[c])
                if output is not None and not same(output, own):
                    self.moved.add(c)
                gap = distance(output, reference, own)
                if gap is not None:   # where the student's code raised, any answer of the right shape is progress
                    gains[c].append(gap - (before if before is not None else RAISED))
                    if before is None:
                        unraised.add(c)
                if not right_on(probe, output, reference):
                    right.discard(c)
                else:
                    some.add(c)
        closeness = {c: sum(g) for c, g in gains.items() if g and min(g) < 0 and max(g) <= 0}
        # partial repairs: right on some wrong call; then those that answered, of the right shape, where the
        # student's code raised (one slip, the crash, fixed), the closest first
        self.partial = [c for c in alive if c in some and c not in right] + sorted(
            (c for c in alive if c in unraised and c not in some and c in closeness), key=lambda c: closeness[c])
        return [c for c in alive if c in right], closeness

    def close(self) -> None:
        self.file.close()


def distance(output: object, reference: object, own: object) -> float | None:
    """The largest difference from the right result (every tensor of a returned pair) of an output that differs
    from the student's own; None for one of another shape, or the same as the student's."""
    got, want, mine = tensors(output), tensors(reference), tensors(own)
    if not got or len(got) != len(want) or any(g.shape != w.shape or not g.is_floating_point() or not g.numel()
                                               for g, w in zip(got, want)):
        return None
    if len(mine) == len(got) and all(m.shape == g.shape and torch.equal(m, g) for m, g in zip(mine, got)):
        return None
    return max((g.double() - w.double()).abs().nan_to_num(float("inf")).max().item() for g, w in zip(got, want))


def same(output: object, own: object) -> bool:
    """Whether a candidate's output is the student's own (every tensor equal, or both the same other value)."""
    got, mine = tensors(output), tensors(own)
    if got or mine:
        return len(got) == len(mine) and all(g.shape == m.shape and torch.equal(g, m) for g, m in zip(got, mine))
    try:
        return bool(output == own)
    except Exception:  # noqa: BLE001 - values that do not compare: not known to be the same
        return False


def tensors(value: object) -> list:
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (tuple, list)) and all(isinstance(v, torch.Tensor) for v in value):
        return list(value)
    return []


def right_on(probe: Probe, output: object, right: object) -> bool:
    if output is None:
        return False
    try:
        return agree(canonical(probe.target, output), right, exact_zeros=probe.target in EXACT_ZEROS).same
    except Exception:  # noqa: BLE001 - an answer of another kind than the reference's: not right
        return False


def in_sequence(screen: StudentFile, names: list[str], probe: Probe) -> dict[str, object]:
    """{candidate: its output} for each candidate that returned, called in one round trip (each wrapped so that
    one that raises answers None). A crash or a hang ends the screen: what was not answered counts as wrong, so a
    file whose code hangs costs one call's time here, not one per candidate."""
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
        except BaseException:  # noqa: BLE001 - a crash or hang: the candidates not answered count as wrong
            break
        outputs = reply.get("outputs") if isinstance(reply.get("outputs"), list) else []
        for name, output in zip(names[start:], outputs):
            found[name] = output
        if reply.get("ok"):
            break
        failed = reply.get("call")
        start += (failed if isinstance(failed, int) and failed >= len(outputs) else len(outputs)) + 1
    return found


def one_by_one(screen: StudentFile, names: list[str], probe: Probe) -> dict[str, object]:
    """{candidate: its output} for a class's candidates, each built and called in turn; the first crash or hang
    ends the screen (what was not answered counts as wrong)."""
    found: dict[str, object] = {}
    for name in names:
        found[name] = output_of(screen, name, probe)
        if screen.child is None or not screen.child.usable:
            break
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


def confirmed(server, source: SourceFile, checks: list[Check], budget: Budget) -> bool:
    """The candidate passes every check, in a child of its own (given no more time than the budget has left)."""
    handle = budget.bound(StudentFile(server, source))
    try:
        return passes(handle, checks)
    finally:
        handle.close()
