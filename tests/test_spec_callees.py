"""One mistake, one charge for declared specs (docs/grading.md): a layer built on the student's own exercise (the
walk's multi-head master, tests/walk_course/, whose reference layer calls its `split_heads`) is not charged for a
mistake of that helper. Generated: every wrong `split_heads` (the head axis not moved, features cut by position,
a reshape that raises for one head) crossed with right layers written two ways that call it, graded by the
generated checks in a sandboxed child and scored by the plugin's own `one_charge`: each loses points in
split_heads' question only. The reverse: a wrong layer over a right helper, and a wrong layer that does not call
the (wrong) helper, are charged in the layer; two mistakes are two charges (where the helper's answers have the
right shape: a helper that makes the layer raise hides the layer's own mistakes on those calls, as in
grading/callees.py). A layer that never answers is excused only when it raises exactly the reference's error on
the helper's answers; a helper that answers no tensor excuses nothing (no failure beats a stub)."""
from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from autograder.authoring.master import read_master
from autograder.authoring.spec_render import declaration, edited_sources, helpers, reference_source, setup_source
from autograder.grading.faults import ExplainedElsewhere, StudentFault
from autograder.grading.plugin import one_charge
from autograder.grading.spec_judge import Declared
from autograder.results import FAILED, PASSED, TestResult as Scored
from autograder.sandbox import ForkServer
from tests.classroom import loaded_file

pytestmark = pytest.mark.slow
MASTER = read_master(Path(__file__).parent / "walk_course" / "multi_head_attention.py")
NAME = "multi_head_attention"
SETUP = "import math\n\nimport torch\nfrom torch import nn\nimport torch.nn.functional as F\n"

SPLIT_RIGHT = ("def split_heads(x, h):\n    B, T, d = x.shape\n"
               "    return x.reshape(B, T, h, d // h).transpose(1, 2)\n")
SPLIT_WRONG = {
    "head axis not moved": "def split_heads(x, h):\n    B, T, d = x.shape\n    return x.reshape(B, T, h, d // h)\n",
    "cut by position": ("def split_heads(x, h):\n    B, T, d = x.shape\n"
                        "    return x.reshape(B, T, d // h, h).permute(0, 3, 1, 2)\n"),
    "view of a transposed tensor": ("def split_heads(x, h):\n    B, T, d = x.shape\n"
                                    "    return x.transpose(1, 2).reshape(B, h, T, d // h)\n"),
}
LAYER_HEAD = ("class MultiHeadAttention(nn.Module):\n    def __init__(self, d_model, h):\n        super().__init__()\n"
              "        self.h = h\n" + "".join(f"        self.W_{n} = nn.Linear(d_model, d_model, bias=False)\n"
                                              for n in "QKVO") +
              "    def forward(self, x_q, x_kv, mask=None):\n        B, T_q, d_model = x_q.shape\n")
LAYER_RIGHT = {   # right whenever split_heads is
    "calls split_heads": (
        "        Q, K, V = (split_heads(f(x), self.h) for f, x in ((self.W_Q, x_q), (self.W_K, x_kv), (self.W_V, x_kv)))\n"
        "        s = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])\n"
        "        if mask is not None:\n            s = s.masked_fill(~mask.bool().unsqueeze(1), float('-inf'))\n"
        "        heads = torch.softmax(s, dim=-1) @ V\n"
        "        return self.W_O(heads.transpose(1, 2).reshape(B, T_q, d_model))\n"),
    "einsum, softmax by hand": (
        "        Q = split_heads(self.W_Q(x_q), self.h) / math.sqrt(d_model // self.h)\n"
        "        K, V = split_heads(self.W_K(x_kv), self.h), split_heads(self.W_V(x_kv), self.h)\n"
        "        s = torch.einsum('bhqd,bhkd->bhqk', Q, K)\n"
        "        if mask is not None:\n            s = s.masked_fill(mask.unsqueeze(1) == 0, float('-inf'))\n"
        "        e = (s - s.amax(-1, keepdim=True)).exp()\n"
        "        heads = torch.einsum('bhqk,bhkd->bqhd', e / e.sum(-1, keepdim=True), V)\n"
        "        return self.W_O(heads.reshape(B, T_q, d_model))\n"),
}
LAYER_WRONG = {   # the layer's own mistakes
    "not scaled": LAYER_RIGHT["calls split_heads"].replace(" / math.sqrt(Q.shape[-1])", ""),
    "heads joined without transpose": LAYER_RIGHT["calls split_heads"].replace("heads.transpose(1, 2)", "heads"),
    "inline split, not scaled": (
        "        d_head = d_model // self.h\n"
        "        Q, K, V = (f(x).reshape(B, x.shape[1], self.h, d_head).transpose(1, 2)\n"
        "                   for f, x in ((self.W_Q, x_q), (self.W_K, x_kv), (self.W_V, x_kv)))\n"
        "        s = Q @ K.transpose(-2, -1)\n"
        "        if mask is not None:\n            s = s.masked_fill(mask.unsqueeze(1) == 0, float('-inf'))\n"
        "        return self.W_O((torch.softmax(s, -1) @ V).transpose(1, 2).reshape(B, T_q, d_model))\n"),
}


def cases():
    """Each wrong helper under a right layer, each right layer over a wrong helper (and over the right one), each
    layer mistake over the right helper, and one layer mistake over a wrong helper of the right shape."""
    layers = list(LAYER_RIGHT.items())
    for number, (split, split_code) in enumerate(SPLIT_WRONG.items()):
        layer, body = layers[number % len(layers)]
        yield f"{split} / {layer}", split_code, body, {"split_heads"}
    # a helper of the wrong shape makes every call of a layer raise: the layer is judged only where it raises
    # exactly what the reference raises on those answers (type and message); one written otherwise (einsum)
    # raises another error, answers nothing, and is charged as over a stub
    layer, body = layers[1]
    yield f"head axis not moved / {layer}", SPLIT_WRONG["head axis not moved"], body, \
        {"split_heads", "MultiHeadAttention"}
    yield f"right split / {layers[0][0]}", SPLIT_RIGHT, layers[0][1], set()
    for layer, body in LAYER_WRONG.items():
        yield f"right split / {layer}", SPLIT_RIGHT, body, {"MultiHeadAttention"}
    # a helper of the right shape but wrong values: the layer's own mistake shows beside it (one whose helper makes
    # it raise shows nothing of its own there, as with a stub: grading/callees.py)
    yield "cut by position / not scaled", SPLIT_WRONG["cut by position"], LAYER_WRONG["not scaled"], \
        {"split_heads", "MultiHeadAttention"}
    # a helper that answers nothing under a layer that always raises what the reference would: the layer answered
    # nothing, so it earns no more than a stub (no failure beats leaving the layer unwritten)
    yield "answers nothing / always raises", "def split_heads(x, h):\n    return None\n", \
        "        raise AttributeError(\"'NoneType' object has no attribute 'transpose'\")\n", \
        {"split_heads", "MultiHeadAttention"}


@pytest.fixture(scope="module")
def grading():
    server = ForkServer()
    judged = {}
    for exercise in MASTER.exercises():
        spec = declaration(MASTER, exercise)
        judged[exercise] = Declared(spec, setup_source(MASTER), reference_source(MASTER, exercise),
                                    edited_sources(MASTER, spec), helpers(MASTER, exercise))
    yield server, judged
    server.close()


def graded(grading, code: str) -> list[Scored]:
    server, judged = grading
    handle = loaded_file(server, code, NAME)
    results, explained = [], []
    try:
        for exercise, declared in judged.items():
            for group in ("edges", "draws"):
                points = declared.spec.points / 2
                try:
                    declared.judge(handle, group)
                    passed, output, questions = True, "", None
                except StudentFault as fault:
                    passed, output = False, str(fault)
                    questions = fault.questions if isinstance(fault, ExplainedElsewhere) else None
                results.append(Scored(test_id=f"{NAME}::{exercise}_{group}", name=f"{exercise}_{group}",
                                      assignment=NAME, question=exercise, score=points if passed else 0.0,
                                      max_score=points, status=PASSED if passed else FAILED, output=output,
                                      attempted=True))
                explained.append(questions)
    finally:
        handle.close()
    return list(one_charge(results, explained))


def test_the_reference_layer_calls_the_masters_own_split_heads():
    assert list(helpers(MASTER, "MultiHeadAttention")) == ["split_heads"]
    assert "split_heads(self.W_Q(x_q), self.h)" in reference_source(MASTER, "MultiHeadAttention")


@pytest.mark.parametrize("case", list(cases()), ids=lambda case: case[0])
def test_a_mistake_is_charged_where_it_is_made_only(grading, case):
    _, split, layer, charged = case
    results = graded(grading, SETUP + "\n\n" + split + "\n\n" + LAYER_HEAD + layer)
    lost = {t.question for t in results if t.score < t.max_score}
    assert lost == charged, [(t.name, t.output[:300]) for t in results]
    if charged == {"split_heads"}:
        layer_checks = [t for t in results if t.question == "MultiHeadAttention"]
        assert all("charged in the question of split_heads" in t.output for t in layer_checks), [t.output for t in layer_checks]
