"""The diagnosis: mistake models agree with real wrong code, can tell each mistake from the right answer and
from each other, the matcher names exactly the mistake wrong code makes, symptoms and translated exceptions
say what they should. Student code from the catalogue runs in this process (trusted test data)."""
from __future__ import annotations

import pytest
import torch

from autograder.diagnosis import Diagnoser, MISTAKES, Observation, Probe, describe, symptoms, translate
from autograder.diagnosis.catalog import MISTAKE_ID
from autograder.diagnosis.compare import agree
from autograder.diagnosis.pipeline import NotApplicable
from autograder.diagnosis.registry import MODELS, canonical, models_for, reference
from tests.diagnosis_cases import (CORRECT, HANDWRITTEN, WRONG, defined_names, observe, probes,
                                   child_harness, student_namespace)

SEEDS = (0, 1)


pytestmark = pytest.mark.usefixtures("one_torch_thread")  # small float64 tensors: a second thread only contends


def wrong_code_cases() -> list:
    """(case id, assignment, target, mistake, code) for every wrong code that a value model covers."""
    cases = []
    for name, entry in WRONG.items():
        if getattr(entry, "CONDITIONAL", ""):
            continue
        for target in defined_names(entry.CODE):
            if any(m.mistake == WRONG[name].MISTAKE_ID for m in models_for(target)):
                cases.append((name, entry.ASSIGNMENT, target, WRONG[name].MISTAKE_ID, entry.CODE))
    cases += [(f"handwritten-{index}-{target}-{mistake}", assignment, target, mistake, code)
              for index, (assignment, target, mistake, code) in enumerate(HANDWRITTEN)]
    return cases


CASES = wrong_code_cases()


def run_model(model, probe: Probe, student_output=None):
    """("raised" | "n/a" | output) of a model on a float64 probe."""
    try:
        output, _ = model.run(probe, student_output)
        return canonical(model.target, output)
    except NotApplicable:
        return "n/a"
    except Exception:  # noqa: BLE001 - the mistaken code raises here too
        return "raised"


def reproduces(model, observations: list[Observation]) -> bool:
    """The model gives what the code gives (or raises where it raises) on every probe it can judge, and it can
    judge at least one. A fitted model cannot judge a probe whose output leaves its free value open."""
    judged = 0
    for observation in observations:
        probe = observation.probe.in_float64()
        output = None if observation.raised else canonical(probe.target, observation.output)
        predicted = run_model(model, probe, output)
        if predicted == "n/a":
            continue
        judged += 1
        if (predicted == "raised") != observation.raised:
            return False
        if not observation.raised and not agree(output, predicted).same:
            return False
    return judged > 0


@pytest.fixture(scope="module")
def reproduced():
    """{case id: [models of the case's mistake that reproduce its code on every probe]}."""
    found = {}
    for case_id, assignment, target, mistake, code in CASES:
        namespace = student_namespace(assignment, code)
        observations = [observe(namespace, p) for seed in SEEDS for p in probes(target, seed)]
        found[case_id] = [m for m in models_for(target) if m.mistake == mistake and reproduces(m, observations)]
    return found


def test_mistake_ids_are_stable_words_with_titles():
    for mistake, title in MISTAKES.items():
        assert MISTAKE_ID.fullmatch(mistake) and len(title) > 20, mistake


@pytest.mark.parametrize("case_id", [c[0] for c in CASES])
def test_model_agrees_with_the_wrong_code(reproduced, case_id):
    assert reproduced[case_id], f"no model of its mistake reproduces {case_id} on every probe"


def test_every_model_is_checked_against_real_wrong_code(reproduced):
    checked = {id(m) for models in reproduced.values() for m in models}
    unchecked = [(m.target, m.mistake) for models in MODELS.values() for m in models if id(m) not in checked]
    assert not unchecked, f"models that no wrong code in the catalogue or the test cases reproduces: {unchecked}"


@pytest.mark.parametrize("target", sorted(MODELS))
def test_no_model_gives_the_right_answer_on_every_probe(target):
    """Otherwise the model could never tell: on the graders' kind of inputs each mistake shows somewhere,
    and a fitted model never fits the right result."""
    right = [(p.in_float64(), canonical(target, reference(p.in_float64()))) for p in probes(target)]
    for model in models_for(target):
        if model.fit is not None:
            fitted = [run_model(model, probe, output) for probe, output in right]
            assert all(f == "n/a" or agree(f, output).same for f, (_, output) in zip(fitted, right)), model.mistake
            continue
        shows = [run_model(model, probe) for probe, _ in right]
        assert any(s == "raised" or not agree(s, output).same for s, (_, output) in zip(shows, right)), model.mistake


@pytest.mark.parametrize("target", sorted(MODELS))
def test_different_mistakes_are_told_apart(target):
    """Two different mistakes that always give the same result would always be named together."""
    inputs = [p.in_float64() for seed in SEEDS for p in probes(target, seed)]
    fixed = [m for m in models_for(target) if m.fit is None]
    results = {id(m): [run_model(m, p) for p in inputs] for m in fixed}
    for first in fixed:
        for second in fixed:
            if first.mistake < second.mistake:
                same = all((a == b) if isinstance(a, str) or isinstance(b, str) else agree(a, b).same
                           for a, b in zip(results[id(first)], results[id(second)]))
                assert not same, f"{first.mistake} and {second.mistake} give the same results on every probe"


def diagnosed(assignment: str, code: str, targets: list[str], complete: bool = False) -> tuple[set, Diagnoser]:
    namespace = student_namespace(assignment, code, complete)
    diagnoser = Diagnoser()
    for target in targets:
        for seed in SEEDS:
            for probe in probes(target, seed):
                diagnoser.record(observe(namespace, probe))
    return {f.mistake for f in diagnoser.explain()}, diagnoser


@pytest.mark.parametrize("name", sorted(WRONG))
def test_matcher_names_the_mistake_the_code_makes_and_no_other(name):
    entry = WRONG[name]
    made = {entry.MISTAKE_ID} if isinstance(entry.MISTAKE_ID, str) else set(entry.MISTAKE_ID)
    targets = defined_names(entry.CODE)
    named, diagnoser = diagnosed(entry.ASSIGNMENT, entry.CODE, targets)
    assert named <= made, f"{name} makes {made}, but the matcher also names {named - made}"
    returned = any(not o.raised for o in diagnoser.observations)  # code that always raises is for errors.py
    modelled = {m.mistake for t in targets for m in models_for(t)} & made
    if returned and len(made) == 1 and modelled and not getattr(entry, "CONDITIONAL", ""):
        assert named == made, f"{name}: {made} not named"


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_matcher_finds_nothing_wrong_in_correct_code(name):
    entry = CORRECT[name]
    complete = not getattr(entry, "ON_REFERENCE", False)
    targets = [t for t in MODELS if t in student_namespace(entry.ASSIGNMENT, entry.CODE, complete)]
    named, diagnoser = diagnosed(entry.ASSIGNMENT, entry.CODE, targets, complete)
    deviating = [o.probe.target for i, o in enumerate(diagnoser.observations) if diagnoser._case(i).deviates]
    assert not named and not deviating, (named, deviating)


def scaled_code(divisor: str) -> str:
    return f"def scaled_dot_scores(Q, K):\n    return Q @ K.transpose(-2, -1) / {divisor}\n"


def test_a_call_where_the_code_is_right_rules_a_mistake_out():
    """Dividing by 8 at d_k = 8 is also "divide by d_k"; at d_k = 64 the code is right, which rules that out."""
    namespace = student_namespace("attention_scores", scaled_code("8"))
    Q8, K8, Q64, K64 = (torch.randn(2, 3, d) for d in (8, 8, 64, 64))
    diagnoser = Diagnoser()
    diagnoser.record(observe(namespace, Probe("scaled_dot_scores", (Q8, K8))))
    assert {f.mistake for f in diagnoser.explain()} == {"scale-by-dk", "scale-hardcoded"}
    diagnoser.record(observe(namespace, Probe("scaled_dot_scores", (Q64, K64))))
    assert {f.mistake for f in diagnoser.explain()} == {"scale-hardcoded"}
    assert diagnoser.explain(since=1) == (), "the last call was right: nothing to explain in it"


def test_evidence_names_the_call_and_how_close_it_is():
    namespace = student_namespace("attention_scores", scaled_code("K.shape[-1]"))
    probe = Probe("scaled_dot_scores", tuple(torch.randn(3, n, 6) for n in (5, 7)), what="scaled_dot_scores at d_k=6")
    (finding,) = diagnose_one(observe(namespace, probe))
    assert finding.mistake == "scale-by-dk" and finding.title == MISTAKES["scale-by-dk"]
    assert finding.evidence.startswith("on scaled_dot_scores at d_k=6, your result equals what this mistake gives")
    assert "the right result differs by up to" in finding.evidence


def diagnose_one(observation: Observation):
    diagnoser = Diagnoser()
    diagnoser.record(observation)
    return diagnoser.explain()


# --- symptoms ------------------------------------------------------------------------------------------

def test_symptom_names_rows_that_do_not_sum_to_one():
    want = torch.full((2, 4, 5), 0.2, dtype=torch.float64)
    got = want.float().clone()
    got[0, 2] *= 0.6
    got[0, 3] *= 0.75
    text = describe(got, want, "attention_weights", weights=True)
    assert "rows 2 and 3 of batch item 0 sum to 0.6 and 0.75" in text


def test_symptom_names_forbidden_keys_that_get_weight():
    allowed = torch.ones(1, 6, 5, dtype=torch.bool)
    allowed[..., 4] = False
    want = torch.full((1, 6, 5), 0.25, dtype=torch.float64).masked_fill(~allowed, 0)
    got = want.float().clone()
    got[0, :5, 4] = torch.tensor([0.31, 0.1, 0.2, 0.05, 0.3])
    text = describe(got, want, "attention with a padding mask", allowed=allowed)
    assert "forbidden key 4 gets weight up to 0.31 in 5 rows" in text


def test_symptom_gives_shapes_and_a_swap_of_the_last_two_axes():
    want = torch.randn(3, 5, 7, dtype=torch.float64)
    text = describe(want.transpose(-2, -1).float(), want, "dot_scores(Q, K)")
    assert text.startswith("dot_scores(Q, K) has shape (3, 7, 5) where (3, 5, 7) was expected.")
    assert "last two axes swapped" in text


def test_symptom_gives_a_common_factor_and_the_items_that_are_right():
    want = torch.randn(3, 5, 7, dtype=torch.float64)
    assert describe((want * 0.125).float(), want, "scores").endswith(
        "every entry is 1/8 of the expected value (0.125 times it).")
    assert describe((want * 2).float(), want, "scores").endswith("every entry is 2 times the expected value.")
    got = want.float().clone()
    got[1, 2, 3] += 1.0
    text = describe(got, want, "scores")
    assert "1 of 105 entries differ" in text and "[1, 2, 3]" in text and "Batch items 0 and 2 are right." in text


def test_symptom_names_nan_rows_and_a_wrong_dtype():
    want = torch.softmax(torch.randn(2, 3, 4, dtype=torch.float64), -1)
    got = want.float().clone()
    got[1, 2] = float("nan")
    text = describe(got, want, "w")
    assert "4 entries are NaN where the expected values are finite, in row 2 of batch item 1." in text
    mask = torch.ones(3, 3).tril()
    assert describe(mask, mask.bool(), "causal_mask(3)") == (
        "causal_mask(3) has dtype torch.float32 where a bool tensor was expected. Its values are right.")


def test_symptoms_keep_signs_name_nan_weights_and_stay_at_the_scale_of_the_question():
    want = torch.softmax(torch.randn(2, 3, 4, dtype=torch.float64), -1)
    allowed = torch.ones(2, 3, 4, dtype=torch.bool)
    allowed[..., 3] = False
    want = want.masked_fill(~allowed, 0.0)
    scores = torch.randn(2, 3, 4, dtype=torch.float64)
    minus = scores.clone()
    minus[0, 1, 2] = float("-inf")
    text = describe(minus.float(), scores, "scores")
    assert "1 entry is -inf where the expected values are finite" in text and "up to inf" not in text
    nan = want.clone()
    nan[0, 0] = float("nan")
    assert "forbidden key 3 gets weight NaN in 1 row" in symptoms.masked_leaks(nan, allowed, 0.0)
    tiny = want.clone()
    tiny[..., 3] = 2.655e-34
    text = symptoms.masked_leaks(tiny, allowed, 0.0)
    assert "nearly 0 (but not 0)" in text and "e-34" not in text and "2.655" not in text
    off = want.float().clone()
    off[1, 2, 1] += 3e-9
    off[1, 2, 0] += 0.25
    text = describe(off, want, "weights")
    assert "e-0" not in text and "yours" in text


# --- exceptions, as the sandbox reports them ----------------------------------------------------------

@pytest.fixture(scope="module")
def harness():
    return child_harness()


LAZY = '''
class SingleHeadAttention(nn.Module):
    def __init__(self, d_model, d_k):
        super().__init__()
        self.W_Q, self.W_K, self.W_V = (nn.LazyLinear(d_k, bias=False) for _ in range(3))
        self.scale = self.W_K.weight.shape[0] ** -0.5  # read before any forward pass: not there yet
'''
NO_TRANSPOSE = "def dot_scores(Q, K):\n    return Q @ K\n"
RAISES = "def softmax_entropy(weights):\n    raise ValueError('entropy is not defined here')\n"
Q, K, V = torch.randn(3, 5, 6), torch.randn(3, 7, 6), torch.randn(3, 7, 5)
LAYER_PARAMS = {f"{n}.weight": torch.randn(6, 24) for n in ("W_Q", "W_K", "W_V")}
ERROR_CASES = [  # (code or catalogue entry, assignment, request, mistake named or None, text that must appear)
    ("att_dot_T_on_3d", "single_head_attention", {"target": "attention", "args": [Q, K, V]}, "transpose-all-dims",
     "scores = Q @ K.T"),
    ("dot_T_on_3d", "attention_scores", {"target": "dot_scores", "args": [Q, K]}, "transpose-all-dims", "Q @ K.T"),
    ("mask_bitwise_not", "attention_scores", {"target": "apply_mask", "args": [Q, torch.ones(3, 5, 6).long()]},
     "mask-bitwise-not", "~mask"),
    ("weights_mask_bitwise_not", "attention_scores",
     {"target": "attention_weights", "args": [Q, torch.ones(3, 5, 6)]}, "mask-bitwise-not", "~mask"),
    ("general_w_transposed", "attention_scores", {"target": "GeneralScore", "args": [Q, torch.randn(3, 7, 4)],
                                                  "init": (6, 4)}, "w-transposed", "self.W.weight"),
    ("general_w_on_queries", "attention_scores", {"target": "GeneralScore", "args": [Q, torch.randn(3, 7, 4)],
                                                  "init": (6, 4)}, None, "takes vectors of size 4"),
    ("att_scales_q_in_place", "single_head_attention",
     {"target": "attention", "args": [Q, K, V], "grad_args": [0, 1, 2]}, "inputs-modified", "Q /= "),
    (LAZY, "single_head_attention", {"target": "SingleHeadAttention", "args": [torch.randn(2, 3, 24)] * 2,
                                     "init": (24, 6), "params": LAYER_PARAMS}, "lazy-parameters", "nn.Linear("),
    (NO_TRANSPOSE, "attention_scores", {"target": "dot_scores", "args": [Q, K]}, None, "return Q @ K"),
    (RAISES, "attention_scores", {"target": "softmax_entropy", "args": [Q]}, None, "raise ValueError"),
]


@pytest.mark.parametrize("code,assignment,request_,mistake,shown", ERROR_CASES, ids=[
    c[0] if c[0] in WRONG else f"code-{i}" for i, c in enumerate(ERROR_CASES)])
def test_exception_translated_only_where_its_cause_is_proven(harness, code, assignment, request_, mistake, shown):
    from tests.classroom import solution_text
    text = solution_text(assignment) + "\n\n" + (WRONG[code].CODE if code in WRONG else code)
    child = harness.Harness()
    child.load({"module": assignment, "filename": f"{assignment}.py", "cells": [text]})
    reply = child.run({"kwargs": {}, "init": None, "params": {}, "grad_args": [], **request_})
    assert not reply["ok"], "the wrong code was expected to raise"
    translation = translate(f"{request_['target']}(...)", reply["error"])
    assert [f.mistake for f in translation.findings] == ([mistake] if mistake else [])
    assert shown in translation.text and reply["error"]["type"] in translation.text
    for finding in translation.findings:
        assert finding.title == MISTAKES[finding.mistake] and reply["error"]["message"][:40] in finding.evidence


def test_translator_says_what_failed_when_no_rule_applies():
    error = {"type": "IndexError", "message": "index 9 is out of bounds", "where": ["a.py#0 line 3: return x[9]"]}
    translation = translate("softmax_entropy(...)", error)
    assert translation.findings == ()
    assert translation.text == ("softmax_entropy(...) raised IndexError: index 9 is out of bounds\n"
                                "  at a.py#0 line 3: return x[9]")


@pytest.mark.parametrize("where", [5, "a.py#0 line 3: x", [7, None, {"x": 1}], {"a": "b"}])
def test_translator_takes_a_malformed_reply_as_it_comes(where):
    """The error is the child's word: a file that rewired its process may send any shape, never a grader crash."""
    translation = translate("attention(...)", {"type": [], "message": {}, "where": where})
    assert translation.findings == () and translation.text.startswith("attention(...) raised [")


def test_a_redrawn_probe_keeps_masks_and_parameters_and_draws_the_rest_afresh():
    scores, mask, params = torch.randn(2, 3, 4), torch.tensor([1.0, 0.0, 1.0, 1.0]), {"W.weight": torch.randn(2, 2)}
    probe = Probe("attention_weights", (scores, mask), {"extra": torch.ones(2)}, params=params, init=(2, 2))
    again = probe.redrawn(seed=3)
    assert again.args[1] is mask and again.kwargs["extra"] is probe.kwargs["extra"] and again.params is params
    fresh = again.in_float64().args[0]
    assert fresh.shape == scores.shape and not torch.allclose(fresh, scores.double())
    assert torch.equal(fresh, probe.redrawn(seed=3).in_float64().args[0]), "the same seed gives the same inputs"
    assert not torch.equal(fresh, probe.redrawn(seed=4).in_float64().args[0])
