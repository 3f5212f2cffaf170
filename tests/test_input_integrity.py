"""Inputs changed in place are found by the parent, whatever the student's file did to hide it.

A file could hide a `masked_fill_` on the caller's scores by patching `Tensor.clone` at import: the child
compared each input with a "copy" that was the input itself. The verdict is now the parent's (grading/
integrity.py, sandbox/child/wire.py: fingerprint). Generated here, through the real sandbox:

- every way of hiding (patched `clone`, `torch.clone`, `detach`, `torch.equal`, `Tensor.numpy`, `contiguous`,
  a torch-function mode pushed at import, nothing) crossed with every way of editing an input (an in-place method, index
  assignment, `out=`, `.data =`, `set_`, an in-place transpose, an edit of the mask or of a later call's input):
  each must be reported, by the engine's fault and by `inputs_changed` for the first call;
- the same in a sequence of calls (grading/calls.py, Harness.sequence): every judged call's inputs, the tensors a
  `reuse` step refilled in place included (an edit made only to those is reported), judged by the parent; an
  unjudged call's edit is left to its own question; a missing or forged report is the student's failure;
- the reference and every correct style of the catalogue, each function on every documented mask form and
  layout, alone and in a sequence (kept, freed, refilled), must never be reported.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
import torch

from autograder.grading import calls as grading_calls, integrity
from autograder.grading.calls import Call, flipped
from autograder.grading.probes import random_mask
from autograder.grading.student import StudentFault, StudentFile
from autograder.sandbox import ForkServer
from tests.classroom import loaded_file, solution_text

CATALOGUE = Path(__file__).resolve().parent / "catalogue" / "correct"

HIDES = {
    "nothing": "",
    "Tensor.clone returns self": "torch.Tensor.clone = lambda self, *a, **k: self\n",
    "torch.clone returns its input": "torch.clone = lambda t, *a, **k: t\n",
    "detach and clone return self": ("torch.Tensor.detach = lambda self: self\n"
                                     "torch.Tensor.clone = lambda self, *a, **k: self\n"),
    "torch.equal always True": "torch.equal = lambda a, b: True\n",
    "Tensor.numpy gives zeros": "torch.Tensor.numpy = lambda self, *a, **k: __import__('numpy').zeros(1)\n",
    "contiguous and cpu give a copy made at import": ("_KEPT = torch.zeros(2, 3, 5)\n"
                                                      "torch.Tensor.contiguous = lambda self, *a, **k: _KEPT\n"
                                                      "torch.Tensor.cpu = lambda self, *a, **k: _KEPT\n"),
    "a torch-function mode at import": '''
from torch.overrides import TorchFunctionMode as _Mode


class _Hide(_Mode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        name = getattr(func, "__name__", "")
        if name in ("clone", "detach", "contiguous", "cpu", "numpy"):
            return args[0]
        if name == "equal":
            return True
        return func(*args, **(kwargs or {}))


_Hide().__enter__()
''',
}

# name -> (definition, which argument it edits, argument count); each is called on scores/Q/K-like inputs
EDITS = {
    "masked_fill_": ("def edit(scores, mask):\n    scores.masked_fill_(mask == 0, float('-inf'))\n"
                     "    return torch.softmax(scores, -1)\n"),
    "index assignment": ("def edit(scores, mask):\n    scores[(mask == 0).expand_as(scores)] = float('-inf')\n"
                         "    return torch.softmax(scores, -1)\n"),
    "sub_ of the row max": ("def edit(scores, mask):\n    scores.sub_(scores.max(-1, keepdim=True).values)\n"
                            "    return torch.softmax(scores.masked_fill(mask == 0, float('-inf')), -1)\n"),
    "out= the input": ("def edit(scores, mask):\n    torch.exp(scores.masked_fill(mask == 0, float('-inf')), out=scores)\n"
                       "    return scores / scores.sum(-1, keepdim=True)\n"),
    ".data = ": ("def edit(scores, mask):\n    scores.data = scores.masked_fill(mask == 0, float('-inf'))\n"
                 "    return torch.softmax(scores, -1)\n"),
    "set_": ("def edit(scores, mask):\n    scores.set_(scores.masked_fill(mask == 0, float('-inf')))\n"
             "    return torch.softmax(scores, -1)\n"),
    "in-place transpose": ("def edit(scores, mask):\n    out = torch.softmax(scores.masked_fill(mask == 0, -1e30), -1)\n"
                           "    scores.transpose_(-2, -1)\n    return out\n"),
    "the mask": ("def edit(scores, mask):\n    mask.logical_not_().logical_not_()\n    mask[..., 0] = False\n"
                 "    return torch.softmax(scores.masked_fill(mask == 0, float('-inf')), -1)\n"),
}


@pytest.fixture(scope="module")
def server():
    server = ForkServer()
    yield server
    server.close()


def student_file(server, text: str, assignment: str = "attention_scores") -> StudentFile:
    return loaded_file(server, text, assignment)


def edit_file(hide: str) -> str:
    """The reference file, a hiding trick at import, then each edit under its own name."""
    text = solution_text("attention_scores") + "\n\nimport torch\n" + HIDES[hide]
    for n, definition in enumerate(EDITS.values()):
        text += "\n\n" + definition.replace("def edit(", f"def edit_{n}(")
    return text


def edit_inputs():
    scores = torch.randn(2, 3, 5, generator=torch.Generator().manual_seed(1))
    mask = random_mask(2, 2, 3, 5)
    return scores, mask


@pytest.mark.parametrize("hide", sorted(HIDES))
def test_every_hidden_edit_is_reported(server, hide):
    student = student_file(server, edit_file(hide))
    scores, mask = edit_inputs()
    missed = []
    for n, name in enumerate(EDITS):
        edited = 1 if name == "the mask" else 0
        try:  # the first call, judged by the test's own message
            reply = student.run(f"edit_{n}", scores, mask, check_inputs=True)
            if not reply.inputs_changed[edited]:
                missed.append(f"{name}: inputs_changed says {reply.inputs_changed}")
        except StudentFault as fault:
            if "in place" not in str(fault):
                missed.append(f"{name}: failed otherwise ({str(fault)[:120]})")
        try:  # a later call, judged by the engine
            student.run(f"edit_{n}", scores, mask, more=[((scores, mask), {})], check_inputs=True)
            missed.append(f"{name}: a later call's edit was not reported")
        except StudentFault as fault:
            if "in place" not in str(fault):
                missed.append(f"{name}: the later call failed otherwise ({str(fault)[:120]})")
    student.close()
    assert not missed, "\n".join(missed)
    assert scores.equal(edit_inputs()[0]), "the parent's own copy is never touched"


def test_inputs_may_change_only_where_a_check_says_so(server):
    student = student_file(server, edit_file("Tensor.clone returns self"))
    scores, mask = edit_inputs()
    reply = student.run("edit_0", scores, mask, more=[((scores, mask), {})], inputs_may_change=True)
    assert len(reply.outputs) == 2
    with pytest.raises(StudentFault, match="in place"):
        student.run("edit_0", scores, mask)
    student.close()


def test_a_missing_or_forged_report_is_the_students_failure():
    scores, mask = edit_inputs()
    request = {"args": [scores, mask], "kwargs": {}, "more": []}
    for after in (None, [], "x", [{"args": [None], "kwargs": {}}], [{"args": [None, None], "kwargs": {"m": None}}]):
        with pytest.raises(integrity.Unconfirmed):
            integrity.changed_inputs(request, after)
    claimed_unchanged = [{"args": [None, None], "kwargs": {}}]  # "nothing was a tensor": a lie the parent sees
    assert integrity.changed_inputs(request, claimed_unchanged) == [["argument 1", "argument 2"]]


# --- no correct style is ever reported -------------------------------------------------------------------

def correct_texts() -> dict[tuple[str, str], str]:
    import importlib.util

    texts = {("reference", a): solution_text(a) for a in ("attention_scores", "single_head_attention")}
    for path in sorted(CATALOGUE.glob("*.py")):
        spec = importlib.util.spec_from_file_location(f"integrity_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        code = module.CODE
        if getattr(module, "ON_REFERENCE", False):
            code = solution_text(module.ASSIGNMENT) + "\n\n" + code
        texts[(path.stem, module.ASSIGNMENT)] = code
    return texts


def mask_forms():
    """(mask, layout) in every documented form: dtypes, ranks, and the layouts the graders hand over."""
    full, square = random_mask(3, 2, 3, 5), random_mask(4, 3, 5)
    pad = (torch.arange(5)[None, :] < torch.tensor([5, 2])[:, None]).unsqueeze(1)
    forms = [(full, None), (square.long(), None), (pad.float(), None), (pad, "expanded:2,3,5"), (full, "strided")]
    return forms


@pytest.mark.parametrize("name, assignment", sorted(correct_texts()))
def test_no_correct_style_is_reported(server, name, assignment):
    student = student_file(server, correct_texts()[name, assignment], assignment)
    g = torch.Generator().manual_seed(5)
    Q, K, V = torch.randn(2, 3, 4, generator=g), torch.randn(2, 5, 4, generator=g), torch.randn(2, 5, 6, generator=g)
    scores = torch.randn(2, 3, 5, generator=g)
    if assignment == "attention_scores":
        calls = [("dot_scores", (Q, K)), ("scaled_dot_scores", (Q, K)),
                 *(("apply_mask", (scores, m), layout) for m, layout in mask_forms()),
                 *(("attention_weights", (scores, m), layout) for m, layout in mask_forms()),
                 ("softmax_entropy", (torch.softmax(scores, -1),))]
    else:
        calls = [*(("attention", (Q, K, V, m), layout) for m, layout in mask_forms())]
    reported = []
    for target, args, *layout in calls:
        layouts = {"0": {str(len(args) - 1): layout[0]}} if layout and layout[0] else None
        reply = student.run(target, *args, check_inputs=True, more=[(args, {})], layouts=layouts,
                            grad_args=(0,) if target != "softmax_entropy" else ())
        if any(reply.inputs_changed):
            reported.append(f"{target} {[tuple(a.shape) for a in args]} {layout}: {reply.inputs_changed}")
    student.close()
    assert not reported, "\n".join(reported)



# --- sequences (grading/calls.py): every judged call's inputs, refilled ones included, judged by the parent ----

REFILLED_ONLY = '''
_KEPT = []


def edit_refilled(scores, mask):
    """Edits only a tensor it was given before: the kept first call's, refilled in place by a later `reuse` step."""
    out = torch.softmax(scores.masked_fill(mask == 0, float('-inf')), -1)
    if any(scores is kept for kept in _KEPT):
        scores.mul_(2)
    _KEPT.append(scores)
    return out
'''


def edit_sequence(target: str) -> list[Call]:
    """The first call's inputs kept, a fresh call, the first call's tensors refilled with other values, then with
    its own values again, a call of another function in between (calls.stateful's shape)."""
    scores, mask = edit_inputs()
    first = Call(target, (scores, mask), layouts={1: "strided"}, keep=True)
    return [first, Call(target, (scores.flip(-1), mask)), Call("dot_scores", (scores, scores), judged=False),
            replace(first, args=flipped(first.args), keep=False, reuse=0),
            replace(first, keep=False, reuse=0)]


@pytest.mark.parametrize("hide", sorted(HIDES))
def test_every_hidden_edit_in_a_sequence_is_reported(server, hide):
    student = student_file(server, edit_file(hide) + REFILLED_ONLY)
    missed = []
    for n, name in [*enumerate(EDITS), ("refilled", "an edit of refilled tensors only")]:
        target = f"edit_{n}"
        try:
            student.sequence(edit_sequence(target))
            missed.append(f"{name}: not reported")
        except StudentFault as fault:
            if "in place" not in str(fault):
                missed.append(f"{name}: failed otherwise ({str(fault)[:160]})")
            elif n == "refilled" and "call 1:" in str(fault):
                missed.append(f"{name}: the first call was named, but only the refilled calls edit ({fault})")
    student.close()
    assert not missed, "\n".join(missed)


def test_an_unjudged_calls_edit_is_its_own_questions(server):
    student = student_file(server, edit_file("nothing"))
    scores, mask = edit_inputs()
    outputs = student.sequence([Call("edit_0", (scores, mask), judged=False), Call("apply_mask", (scores, mask))])
    assert outputs[0] is None and isinstance(outputs[1], torch.Tensor)
    student.close()


def test_a_missing_or_forged_sequence_report_is_the_students_failure():
    scores, mask = edit_inputs()
    calls = [Call("apply_mask", (scores, mask)), Call("dot_scores", (scores, scores), judged=False)]
    for after, returned in ((None, 2), ([], 2), ([{"args": [None, None], "kwargs": {}}], 2), ("x", 0),
                            ([{"args": [None], "kwargs": {}}, None], 2)):
        with pytest.raises(integrity.Unconfirmed):
            grading_calls.modified(calls, after, returned)
    claimed = [{"args": [None, None], "kwargs": {}}, "anything: an unjudged call's report is not read"]
    assert [text.split(":")[0] for text in grading_calls.modified(calls, claimed, 2)] == [
        "argument 1 of call 1", "argument 2 of call 1"]


@pytest.mark.parametrize("name, assignment", sorted(correct_texts()))
def test_no_correct_style_is_reported_in_a_sequence(server, name, assignment):
    """Every documented mask form and layout, kept, freed, refilled in place with other values and its own again."""
    student = student_file(server, correct_texts()[name, assignment], assignment)
    g = torch.Generator().manual_seed(6)
    Q, K, V = torch.randn(2, 3, 4, generator=g), torch.randn(2, 5, 4, generator=g), torch.randn(2, 5, 6, generator=g)
    scores = torch.randn(2, 3, 5, generator=g)
    if assignment == "attention_scores":
        plain = [Call("dot_scores", (Q, K)), Call("scaled_dot_scores", (Q, K)),
                 Call("softmax_entropy", (torch.softmax(scores, -1),))]
        masked = [Call(target, (scores, m), layouts={1: layout}, grad_args=(0,))
                  for target in ("apply_mask", "attention_weights") for m, layout in mask_forms()]
    else:
        plain, masked = [], [Call("attention", (Q, K, V, m), layouts={3: layout}) for m, layout in mask_forms()]
    reported = []
    for call in plain + masked:
        kept = replace(call, keep=True)
        sequence = [kept, replace(call, args=flipped(call.args), reuse=0), replace(call, reuse=0), call]
        try:
            student.sequence(sequence)
        except StudentFault as fault:
            reported.append(f"{call.describe()}: {str(fault)[:200]}")
    student.close()
    assert not reported, "\n".join(reported)
