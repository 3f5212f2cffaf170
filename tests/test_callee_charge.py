"""One mistake, one charge between a function and the graded function it calls (README).

The handout tells students to build `attention_weights` on their own `apply_mask` (and many build
`scaled_dot_scores` on their `dot_scores`): a wrong `apply_mask` then cost points in both questions. Generated
here: every wrong callee (fills from -1e3 to -1e4, an additive mask, an inverted or multiplied mask, an input
changed in place, a refusal of 1-D masks, a 2-D mask read as (B, T_k)) crossed with correct callers written
several ways that call it, graded by the real hidden tests in a sandboxed child and scored by the plugin's own
`one_charge`: each loses points in the callee's question only. The reverse: a wrong caller over a right callee
(mask after the softmax, the wrong axis, an inverted mask passed down, its own in-place edit) is charged in the
caller; two mistakes are two charges.
"""
from __future__ import annotations

import inspect
import sys
from pathlib import Path

import pytest

from autograder.grading.faults import ExplainedElsewhere, StudentFault
from autograder.grading.plugin import one_charge
from autograder.results import FAILED, PASSED, TestResult as Scored
from autograder.sandbox import ForkServer
from tests.classroom import loaded_file, solution_text

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import seed_sweep  # noqa: E402 - the hidden tests and their fixtures, loaded as the sweep loads them

pytestmark = pytest.mark.slow

APPLY_MASK_WRONG = {
    "fill -1e4": "    return scores.masked_fill(mask == 0, -1e4)\n",
    "fill -1e3": "    return scores.masked_fill(mask == 0, -1000.0)\n",
    "additive (1 - mask) * -10000": "    return scores + (1 - mask.float()) * -10000.0\n",
    "inverted": "    return scores.masked_fill(mask != 0, float('-inf'))\n",
    "multiplied": "    return scores * mask\n",
    "in place": "    return scores.masked_fill_(mask == 0, float('-inf'))\n",
    "refuses 1-D masks": ("    if mask.dim() < 2:\n        raise ValueError('mask must be 2-D or 3-D')\n"
                          "    return scores.masked_fill(mask == 0, float('-inf'))\n"),
    "2-D read as (B, T_k)": ("    if mask.dim() == 2:\n        mask = mask.unsqueeze(1)\n"
                             "    return scores.masked_fill(mask == 0, float('-inf'))\n"),
}
WEIGHTS_CALLING_APPLY_MASK = {  # correct whenever apply_mask is
    "reference": None,
    "stable by hand": ("    s = scores if mask is None else apply_mask(scores, mask)\n"
                       "    e = (s - s.amax(-1, keepdim=True)).exp()\n    return e / e.sum(-1, keepdim=True)\n"),
}
WEIGHTS_WRONG = {  # over a right apply_mask: the caller's own mistakes
    "mask after softmax": ("    w = torch.softmax(scores, dim=-1)\n"
                           "    return w if mask is None else w * (mask != 0)\n"),
    "softmax over queries": ("    if mask is not None:\n        scores = apply_mask(scores, mask)\n"
                             "    return torch.softmax(scores, dim=-2)\n"),
    "inverted mask passed down": ("    if mask is not None:\n        scores = apply_mask(scores, mask == 0)\n"
                                  "    return torch.softmax(scores, dim=-1)\n"),
    "own in-place edit": ("    scores -= scores.amax(-1, keepdim=True).detach()\n"
                          "    if mask is not None:\n        scores = apply_mask(scores, mask)\n"
                          "    return torch.softmax(scores, dim=-1)\n"),
}
DOT_WRONG = {
    "transposed": "    return K @ Q.transpose(-2, -1)\n",
    "scaled already": "    return Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1])\n",
    "in place": "    Q.div_(2.0)\n    return 2 * (Q @ K.transpose(-2, -1))\n",
    "graph cut": "    return (Q @ K.transpose(-2, -1)).detach()\n",
}
SCALED_CALLING_DOT = {
    "divides the dot scores": "    return dot_scores(Q, K) / math.sqrt(K.shape[-1])\n",
    "scales the queries first": "    return dot_scores(Q * K.shape[-1] ** -0.5, K)\n",
}
SCALED_WRONG = {"divides by d_k": "    return dot_scores(Q, K) / K.shape[-1]\n",
                "graph cut": "    return dot_scores(Q, K).detach() / math.sqrt(K.shape[-1])\n"}

MASK_TESTS = ["test_apply_mask_values", "test_apply_mask_broadcast_and_inputs", "test_attention_weights_softmax",
              "test_attention_weights_mask"]
SCORE_TESTS = ["test_dot_scores_values", "test_dot_scores_edge_shapes", "test_dot_scores_gradients",
               "test_scaled_dot_scores_values", "test_scaled_dot_scores_edge_shapes", "test_scaled_dot_scores_gradients"]


def definition(name: str, params: str, body: str | None) -> str:
    return "" if body is None else f"\n\ndef {name}({params}):\n{body}"


def cases():
    """(id, appended code, hidden tests, questions that must lose points)"""
    found = []
    for mistake, body in APPLY_MASK_WRONG.items():
        for style, caller in WEIGHTS_CALLING_APPLY_MASK.items():
            code = definition("apply_mask", "scores, mask", body) + definition("attention_weights",
                                                                               "scores, mask=None", caller)
            found.append((f"apply_mask {mistake} / attention_weights {style}", code, MASK_TESTS, {"apply_mask"}))
    for mistake, body in WEIGHTS_WRONG.items():
        found.append((f"attention_weights {mistake} / right apply_mask",
                      definition("attention_weights", "scores, mask=None", body), MASK_TESTS, {"attention_weights"}))
    found.append(("two mistakes: apply_mask fill -1e4 and softmax over queries",
                  definition("apply_mask", "scores, mask", APPLY_MASK_WRONG["fill -1e4"])
                  + definition("attention_weights", "scores, mask=None", WEIGHTS_WRONG["softmax over queries"]),
                  MASK_TESTS, {"apply_mask", "attention_weights"}))
    for mistake, body in DOT_WRONG.items():
        for style, caller in SCALED_CALLING_DOT.items():
            code = definition("dot_scores", "Q, K", body) + definition("scaled_dot_scores", "Q, K", caller)
            found.append((f"dot_scores {mistake} / scaled_dot_scores {style}", code, SCORE_TESTS, {"dot_scores"}))
    for mistake, body in SCALED_WRONG.items():
        found.append((f"scaled_dot_scores {mistake} / right dot_scores",
                      definition("scaled_dot_scores", "Q, K", body), SCORE_TESTS, {"scaled_dot_scores"}))
    return found


@pytest.fixture(scope="module")
def grading():
    server = ForkServer()
    yield server, seed_sweep.hidden_tests("attention_scores"), seed_sweep.Fixtures()
    server.close()


def graded(grading, code: str, names: list[str]) -> list[Scored]:
    """The named hidden tests on the reference with `code` appended, as the plugin scores them (one_charge)."""
    server, tests, fixtures = grading
    handle = loaded_file(server, solution_text("attention_scores") + "\n\nimport math\nimport torch\n" + code,
                         "attention_scores")
    results, explained = [], []
    try:
        for name in names:
            function = tests[name]
            question = question_of(function)
            points = points_of(function)
            try:
                function(*[fixtures.value(p, handle) for p in inspect.signature(function).parameters])
                results.append(result(name, question, points, passed=True))
                explained.append(None)
            except StudentFault as fault:
                results.append(result(name, question, points, passed=False, output=str(fault)))
                explained.append(fault.questions if isinstance(fault, ExplainedElsewhere) else None)
    finally:
        handle.close()
    return list(one_charge(results, explained))


def marker(function, name: str):
    return next(m.args[0] for m in getattr(function, "pytestmark", []) if m.name == name)


def question_of(function) -> str:
    return marker(function, "question")


def points_of(function) -> float:
    return float(marker(function, "points"))


def result(name: str, question: str, points: float, passed: bool, output: str = "") -> Scored:
    return Scored(test_id=f"attention_scores::{name}", name=name, assignment="attention_scores",
                      question=question, score=points if passed else 0.0, max_score=points,
                      status=PASSED if passed else FAILED, output=output, attempted=True)


@pytest.mark.parametrize("case", cases(), ids=lambda case: case[0])
def test_a_mistake_is_charged_where_it_is_made_only(grading, case):
    _, code, names, questions = case
    results = graded(grading, code, names)
    lost = {t.question for t in results if t.score < t.max_score}
    assert lost == questions, [(t.test_id, t.output[:300]) for t in results if t.score < t.max_score]
    for test in results:
        if test.question not in questions and test.output:  # resolved: the message says where it is charged
            assert test.output.startswith("Not charged here") and all(f"`{q}`" in test.output for q in questions)
