"""A master's declared specs made into graders (`make assignments`): each declared mistake found as ONE edit of
the reference in the repair stage's vocabulary (repair/edits.py), the declaration checked against its own
probes (grading/spec_judge.py: refusals), and the hidden checks, the handout's expectations and a public check
written from it. A declaration that cannot grade is refused with one sentence naming the master and the entry."""
from __future__ import annotations

import ast
import copy
from functools import lru_cache

import torch

from ..grading.spec_judge import Declared, undefined
from ..grading.spec_space import Declaration, SpecError, expectations, read
from ..repair.candidates import _segment, apply, singles
from ..repair.edits import Context, alternatives, definition, nodes, substitute
from .master import Master, MasterError, solution


def spec_text(master: Master, exercise: str) -> str | None:
    cells = master.of("spec", exercise)
    return cells[0].source if cells else None


def declaration(master: Master, exercise: str) -> Declaration | None:
    text = spec_text(master, exercise)
    if text is None:
        return None
    try:
        return read(exercise, text)
    except SpecError as error:
        raise MasterError(f"{master.name}.py: {error}") from None


def reference_source(master: Master, exercise: str) -> str:
    return "\n\n\n".join(solution(c.source) for c in master.of("solution", exercise))


def helpers(master: Master, exercise: str) -> dict[str, str]:
    """{name: reference} of the master's other exercises that `exercise`'s reference calls, directly or through
    each other, in the master's order: a student's file holds them all, so the reference may call them too."""
    def named(source: str) -> set[str]:
        try:
            return {n.id for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Name)}
        except SyntaxError:
            return set()
    wanted, todo = set(), [exercise]
    while todo:
        for other in named(reference_source(master, todo.pop())) & set(master.exercises()):
            if other != exercise and other not in wanted:
                wanted.add(other)
                todo.append(other)
    return {name: reference_source(master, name) for name in master.exercises() if name in wanted}


def setup_source(master: Master) -> str:
    return "\n\n".join(c.source for c in master.of("setup"))


def _same_code(a: str, b: str) -> bool:
    try:
        return ast.unparse(ast.parse(a.strip())) == ast.unparse(ast.parse(b.strip()))
    except SyntaxError:
        return a.strip() == b.strip()


def edited_sources(master: Master, spec: Declaration) -> dict[str, str]:
    """{mistake id: the reference with its one declared edit made}; MasterError when the edit is not exactly one.
    Edits found twice (the same change reached as two kinds of swap) are one edit: what counts is the code made."""
    source = reference_source(master, spec.exercise)
    edits = singles(source, spec.exercise)
    made = {}
    for mistake in spec.mistakes:
        shown = {id(e): _read_as(source, spec.exercise, e, mistake.at) for e in edits if e.key == mistake.edit}
        placed = [e for e in edits if shown.get(id(e))]
        chosen = [e for e in placed if not mistake.to or _same_code(shown[id(e)][1], mistake.to)]
        distinct: dict[str, object] = {}
        for edit in chosen:
            distinct.setdefault(apply(source, spec.exercise, [edit]), edit)
        if len(distinct) != 1:
            raise MasterError(f"{master.name}.py: mistake {mistake.id} of {spec.exercise}: "
                              f"{_why_not_one(edits, mistake, list(distinct.values()), placed, shown)}.")
        made[mistake.id] = next(iter(distinct))
    return made


@lru_cache(maxsize=8)
def _tree(source: str, exercise: str) -> tuple:
    """The definition's tree as the edits were listed on it: (root, its nodes in order, parents, edit context)."""
    root = definition(ast.parse(_segment(source, exercise)), exercise)
    parents = {id(child): parent for parent in ast.walk(root) for child in ast.iter_child_nodes(parent)}
    return root, list(nodes(root)), parents, Context(root)


def _read_as(source: str, exercise: str, edit, at: str) -> tuple[str, str] | None:
    """(old, new) of the edit, read as the code `at` names: the edit's own code or an expression enclosing it
    (`self.W_K(x_kv)` for the swap of its `x_kv`); None when `at` is neither."""
    if _same_code(edit.old, at):
        return edit.old, edit.new
    try:
        wanted = ast.unparse(ast.parse(at.strip()).body[0]) if at.strip() else None
    except SyntaxError:
        return None
    root, listed, parents, context = _tree(source, exercise)
    node = listed[edit.index]
    new = alternatives(node, root, context)[edit.choice][1]
    if new is None:
        return None
    shown, replacement = node, new
    while True:
        if ast.unparse(shown) == wanted:
            return ast.unparse(shown), ast.unparse(replacement)
        if isinstance(shown, ast.stmt) or id(shown) not in parents:
            return None
        parent = parents[id(shown)]
        memo: dict = {}
        copied = copy.deepcopy(parent, memo)
        substitute(copied, memo[id(shown)], replacement)
        shown, replacement = parent, copied
    return None


def _why_not_one(edits: list, mistake, chosen: list, placed: list, shown: dict) -> str:
    """Why a declared mistake is not exactly one edit of the reference: what `at` matched, what it should match."""
    if chosen and len({shown[id(e)][1] for e in chosen}) < len(chosen):   # one change, several places
        lines = ", ".join(str(e.line) for e in sorted(chosen, key=lambda e: e.line))
        return (f"`{mistake.edit}` makes this change of `{mistake.at}` in {len(chosen)} places (lines {lines} of "
                "the reference): write as `at` an enclosing expression or statement that occurs once")
    if chosen:
        return (f"{len(chosen)} different `{mistake.edit}` edits change `{mistake.at}` (to " +
                ", ".join(f"`{shown[id(e)][1]}`" for e in chosen) + "): `to` says which")
    if placed:   # the edit is there, but never to the code `to` names
        offered = sorted({shown[id(e)][1] for e in placed})
        other = sorted({e.key for e in edits if _same_code(e.old, mistake.at) and _same_code(e.new, mistake.to)})
        return (f"`{mistake.edit}` changes `{mistake.at}` only to " + ", ".join(f"`{o}`" for o in offered)
                + f", never to `{mistake.to}`"
                + (f"; the edit that makes it so is {', '.join(f'`{k}`' for k in other)}" if other else ""))
    there = sorted({e.key for e in edits if _same_code(e.old, mistake.at)})
    places = sorted({e.old for e in edits if e.key == mistake.edit}, key=len)
    why = f"no `{mistake.edit}` edit changes `{mistake.at}` in the reference"
    why += f" (the edits of that code: {', '.join(there)})" if there else " (no code of the reference reads so)"
    if places:
        listed = ", ".join(f"`{old}`" for old in places[:6]) + (", ..." if len(places) > 6 else "")
        return (f"{why}; `at` is the expression the edit changes or one enclosing it, and `{mistake.edit}` changes "
                f"{listed}")
    keys = sorted({e.key for e in edits})
    return (f"{why}; `{mistake.edit}` is no edit this reference offers anywhere (docs/authoring.md, \"Declarable "
            f"edits\"); it offers {', '.join(keys)}")


@lru_cache(maxsize=16)
def _checked(name: str, exercise: str, spec_text_: str, setup: str, reference: str, mistakes: tuple,
             called: tuple = ()) -> None:
    spec = read(exercise, spec_text_)
    try:
        refused = Declared(spec, setup, reference, dict(mistakes), dict(called)).refusals()
    except NameError as error:
        raise MasterError(f"{name}.py: {undefined(exercise, error)}") from None
    except Exception as error:  # noqa: BLE001 - the master's own code failed: said to its author
        raise MasterError(f"{name}.py: the spec of {exercise} could not run its reference or a mistake: "
                          f"{type(error).__name__}: {error}") from None
    if refused:
        raise MasterError(f"{name}.py: {refused[0]}")


def group_points(spec: Declaration) -> dict[str, float]:
    """The exercise's points split between its checks: the edges and the draws (all on the edges without draws)."""
    if spec.draws == 0:
        return {"edges": spec.points}
    return {"edges": spec.points / 2, "draws": spec.points / 2}


TITLES = {"edges": "{f} at the edges of its declared space (each size at its bounds, two sizes equal, each rank, "
                   "each scalar at its bounds, each value range reached)",
          "draws": "{f} on {n} seeded draws from its declared space"}


def hidden_tests(master: Master) -> str:
    """The hidden checks of every exercise with a spec, checked first; "" when none has one."""
    blocks = []
    setup = setup_source(master)
    for exercise in master.exercises():
        spec = declaration(master, exercise)
        if spec is None:
            continue
        mistakes = edited_sources(master, spec)
        reference = reference_source(master, exercise)
        called = helpers(master, exercise)
        _checked(master.name, exercise, spec_text(master, exercise), setup, reference, tuple(sorted(mistakes.items())),
                 tuple(called.items()))
        constant = f"SPEC_{exercise.upper()}"
        blocks.append(f"{constant} = _Declared(_read_spec({exercise!r}, {spec_text(master, exercise)!r}),\n"
                      f"    {setup!r},\n    {reference!r},\n    {mistakes!r},\n    {called!r})")
        tags = ", ".join(repr(m.id) for m in spec.mistakes)
        for group, points in group_points(spec).items():
            title = TITLES[group].format(f=exercise, n=spec.draws)
            blocks.append(f'@pytest.mark.question({exercise!r})\n@pytest.mark.points({points:g})\n'
                          + (f"@pytest.mark.tags({tags})\n" if tags else "")
                          + f'def test_{exercise}_{group}(student):\n    """{title}"""\n'
                            f'    {constant}.judge(student, {group!r})')
    if not blocks:
        return ""
    head = ("# Checks generated from the declared specs (autograder/authoring/spec_render.py)\nimport pytest\n\n"
            "from autograder.grading.spec_judge import Declared as _Declared\n"
            "from autograder.grading.spec_space import read as _read_spec")
    if not any("pytestmark" in c.source for c in master.of("hidden-setup")):
        head += f"\n\npytestmark = pytest.mark.assignment({master.name!r})"   # no hidden-setup cell needed
    return "\n\n\n".join([head, *blocks])


def expected_where_silent(master: Master, exercise: str) -> str:
    spec = declaration(master, exercise)
    return "" if spec is None else f"*What the grader expects where the lesson is silent:* {expectations(spec)}"


def public_check(master: Master, exercise: str) -> str:
    """An otter check on the first edge probe (sizes near the middle) and the smallest one, for an exercise with a
    spec and no public cell: its inputs, the expected results and each declared mistake's written out (to float32's
    nine digits), compared to the derived float32 bound. A failure says, in a few lines, which call, the largest
    error and where, the spec's hint, and the declared mistake the numbers match."""
    spec = declaration(master, exercise)
    declared = Declared(spec, setup_source(master), reference_source(master, exercise),
                        edited_sources(master, spec), helpers(master, exercise))
    probes = declared.groups["edges"]
    smallest = sorted(range(1, len(probes)), key=lambda n: (sum(a.numel() for a in probes[n].args
                                                                if isinstance(a, torch.Tensor)), n))
    cases = []
    for number in [0, *smallest[:1]]:   # the middle of the space, and its smallest edge
        probe = probes[number]
        expected = declared.expected(declared.reference, probe)
        mistakes = []
        for mistake, function in declared.mistakes.items():
            try:
                mistakes.append([declared.says[mistake], [_plain(w) for w, _ in declared.expected(function, probe)]])
            except Exception:  # noqa: BLE001 - this mistake raises on this probe: nothing to match
                continue
        cases.append({"call": declared.describe(probe), "init": list(probe.init),
                      "args": [_plain(a) for a in probe.args],
                      "params": {n: _plain(p) for n, p in declared.params(probe).items()},
                      "expected": [_plain(want) for want, _ in expected],
                      "bound": [float(f"{4 * float(bound.max()):.3g}") if bound.numel() else 0.0 for _, bound in expected],
                      "mistakes": mistakes})
    return (f"@test_case(points=None, hidden=False)\ndef test_{exercise}({exercise}):\n"
            f"    import torch\n    hint = {spec.hint!r}\n"
            f"    for case in {cases!r}:\n"
            "        args = [torch.tensor(a[1], dtype=getattr(torch, a[0])) if isinstance(a, list) else a "
            "for a in case['args']]\n"
            f"        made = {exercise}\n"
            "        if case['params'] or case['init']:\n"
            f"            made = {exercise}(*case['init']).eval()\n"
            "            with torch.no_grad():\n"
            "                for name, (dtype, value) in case['params'].items():\n"
            "                    holder = made\n"
            "                    for part in name.split('.'):\n"
            "                        holder = getattr(holder, part)\n"
            "                    holder.copy_(torch.tensor(value))\n"
            "        with torch.no_grad():\n            got = made(*args)\n"
            "        got = list(got) if isinstance(got, (tuple, list)) else [got]\n"
            "        for n, (one, (dtype, value), bound) in enumerate(zip(got, case['expected'], case['bound'])):\n"
            "            want = torch.tensor(value, dtype=getattr(torch, dtype))\n"
            "            assert tuple(one.shape) == tuple(want.shape), (\n"
            "                f\"{case['call']}: shape {tuple(one.shape)}, expected {tuple(want.shape)}. {hint}\")\n"
            "            if torch.allclose(one.double(), want.double(), rtol=0, atol=bound):\n"
            "                continue\n"
            "            error = (one.double() - want.double()).abs().nan_to_num(float('inf'))\n"
            "            where = tuple(int(i) for i in torch.unravel_index(error.argmax(), error.shape))\n"
            "            said = [says for says, results in case['mistakes'] if len(results) > n and "
            "tuple(torch.tensor(results[n][1]).shape) == tuple(one.shape) and "
            "torch.allclose(one.double(), torch.tensor(results[n][1]).double(), rtol=0, atol=bound, equal_nan=True)]\n"
            "            raise AssertionError(\n"
            "                f\"{case['call']}: wrong values, largest error {error.max().item():.3g} at index {where} \"\n"
            "                f\"(got {one.double()[where].item():.6g}, expected {want.double()[where].item():.6g}; \"\n"
            "                f\"float32 rounding allows {bound:.2g}). {hint}\"\n"
            "                + (f\" Your numbers match a known mistake: {said[0]}.\" if said else ''))\n")


def _plain(value):
    """A tensor as [dtype, nested lists], each number to nine significant digits (a float32 exactly)."""
    if isinstance(value, torch.Tensor):
        dtype = str(value.dtype).removeprefix("torch.")
        return [dtype, _rounded(value.tolist())]
    return value


def _rounded(value):
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    return float(f"{value:.9g}") if isinstance(value, float) else value
