"""The searched mistake space (diagnosis/stages.py, search.py): combinations of mistakes in one function are
named, a fitted scale is said in numbers, an explanation is named only when all the simplest ones share it, and
on held-out mistakes (the reference's source mutated, bench/heldout_mistakes.py) no wrong cause is named.
Student code runs in this process (trusted test data: the kit's own reference, mutated)."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
import torch

from autograder.diagnosis.registry import canonical
from autograder.diagnosis.search import Call, Explanation, Search, named
from autograder.diagnosis.stages import Variant
from tests.diagnosis_cases import probes
from tests.test_diagnosis import diagnosed

BENCH = Path(__file__).resolve().parents[1] / "bench" / "heldout_mistakes.py"
spec = importlib.util.spec_from_file_location("heldout_mistakes", BENCH)
heldout = sys.modules.setdefault("heldout_mistakes", importlib.util.module_from_spec(spec))
spec.loader.exec_module(heldout)


pytestmark = pytest.mark.usefixtures("one_torch_thread")  # small float64 tensors: a second thread only contends


def attention_code(scale: str = "/ math.sqrt(K.shape[-1])", dim: int = -1, fill: str = "float('-inf')") -> str:
    return (f"def attention(Q, K, V, mask=None):\n    s = Q @ K.transpose(-2, -1) {scale}\n"
            f"    if mask is not None:\n        s = s.masked_fill(mask == 0, {fill})\n"
            f"    w = torch.softmax(s, dim={dim})\n    return w @ V, w\n")


def test_two_mistakes_in_one_function_are_both_named():
    found, _ = diagnosed("single_head_attention", attention_code("/ K.shape[-1]", dim=-2), ["attention"])
    assert found == {"scale-by-dk", "softmax-wrong-dim"}


def test_a_fitted_scale_is_said_in_numbers_and_must_follow_one_law():
    found, diagnoser = diagnosed("single_head_attention", attention_code("/ 3.0"), ["attention"])
    assert found == {"scale-wrong-factor"}
    (finding,) = diagnoser.explain()
    assert "divided by 3 at d_k" in finding.evidence and "the divisor is 3 at every d_k tried" in finding.evidence
    # a divisor that follows no law (it depends on the batch size) explains nothing
    found, _ = diagnosed("single_head_attention", attention_code("/ (Q.shape[0] + 0.5)"), ["attention"])
    assert "scale-wrong-factor" not in found


@pytest.mark.parametrize("assignment,code,target,mistake", [
    ("attention_scores", "def scaled_dot_scores(Q, K):\n    return Q @ K / math.sqrt(K.shape[-1])\n",
     "scaled_dot_scores", "k-not-transposed"),
    ("single_head_attention", attention_code("/ math.sqrt(K.shape[-1])", fill="float('inf')"), "attention",
     "mask-fill-plus-inf"),
    ("attention_scores", "def softmax_entropy(weights):\n    return -torch.special.xlogy(weights, weights).sum()\n",
     "softmax_entropy", "entropy-wrong-dim"),
])
def test_a_whole_class_of_slips_is_in_the_space(assignment, code, target, mistake):
    """Keys left untransposed (it runs only where T_k = d_k), a +inf fill, an entropy summed over everything."""
    found, _ = diagnosed(assignment, code, [target])
    assert found == {mistake}


def test_an_edit_that_is_two_mistakes_at_once_is_named_as_both():
    code = "def padding_mask(lengths, T_k):\n    return (torch.arange(T_k)[None, :] > lengths[:, None]).unsqueeze(1)\n"
    found, _ = diagnosed("attention_scores", code, ["padding_mask"])
    assert found == {"padding-inverted", "padding-off-by-one"}


def test_only_what_every_simplest_explanation_shares_is_named():
    scale, dim, rows = (Variant("scale-by-dk", {"scale": "scale-by-dk"}),
                        Variant("softmax-wrong-dim", {"softmax": "softmax-wrong-dim"}),
                        Variant("softmax-no-dim", {"softmax": "softmax-no-dim"}))
    assert named([Explanation((scale, dim), ()), Explanation((scale, rows), ())]) == {"scale-by-dk"}
    assert named([Explanation((dim,), ()), Explanation((rows,), ())]) == frozenset()
    assert named([]) == frozenset()


def test_the_search_names_nothing_for_correct_code():
    for assignment, targets in (("attention_scores", ["scaled_dot_scores", "attention_weights", "softmax_entropy",
                                                      "padding_mask", "causal_mask"]),
                                ("single_head_attention", ["attention", "SingleHeadAttention"])):
        found, diagnoser = diagnosed(assignment, "", targets)
        assert not found
        for target in targets:
            calls = [Call(o.probe.in_float64(), canonical(target, o.output), o.raised, True)
                     for o in diagnoser.observations if o.probe.target == target]
            assert not named(Search().simplest(target, calls, True)), target


# --- held-out mistakes: the reference mutated, never the mistake space -----------------------------

SLICE = {"attention_scores": ["scaled_dot_scores", "attention_weights", "padding_mask", "softmax_entropy",
                              "apply_mask", "causal_mask"],
         "single_head_attention": ["attention"]}


def slice_mutants() -> list:
    mutants = []
    for assignment, functions in SLICE.items():
        source = heldout.reference_module(assignment)
        for function in functions:
            for edit in heldout.edits(source, function):
                text = heldout.apply(source, [edit])
                if text:
                    mutants.append(heldout.Mutant(assignment, (edit,), text))
    return mutants


def in_process_verdict(mutant) -> str | None:
    """The bench's verdict on the in-process probes (None: no probe tells the mutant from the reference, or
    the file does not run)."""
    function = mutant.edits[0].function
    try:
        found, diagnoser = diagnosed(mutant.assignment, mutant.text, [function], complete=True)
    except Exception:  # noqa: BLE001 - a mutant that breaks the file: the graders' business, not the diagnosis'
        return None
    if not any(diagnoser._case(i).deviates for i in range(len(diagnoser))):
        return None
    return heldout.verdict(mutant, found)


def test_held_out_mistakes_get_no_wrong_cause_and_many_are_named():
    verdicts = {m.label: v for m in slice_mutants() if (v := in_process_verdict(m)) is not None}
    wrong = [label for label, v in verdicts.items() if v == "wrong cause"]
    assert not wrong, f"wrong causes named for held-out mistakes: {wrong}"
    share = sum(v == "named" for v in verdicts.values()) / len(verdicts)
    assert len(verdicts) >= 40 and share >= 0.4, (len(verdicts), share)


# --- feedback: one statement of a repeated message, failures beside a found mistake pointed to it ---------

def test_a_repeated_message_is_stated_once_and_a_failure_beside_a_mistake_points_to_it():
    from autograder.reporting.class_stats import undiagnosed_failures
    from autograder.reporting.feedback import feedback_markdown
    from autograder.results import Diagnosis
    from tests.markdown_read import shown_text
    from tests.report_classes import check, student

    raised = "attention(...) raised RuntimeError: shapes cannot be multiplied\n  at line 3: s = Q @ K"
    mistake = Diagnosis("scale-by-dk", "the scores are divided by d_k instead of sqrt(d_k)", "measured on a call.")
    result = student("ann", [check("test_a", output=raised, question="attention", name="first"),
                             check("test_b", output=raised, question="attention", name="second"),
                             check("test_c", output="rows differ", question="scaled_dot_scores", name="values",
                                   diagnoses=(mistake,)),
                             check("test_d", output="no gradient", question="scaled_dot_scores", name="gradients")])
    markdown = shown_text(feedback_markdown(result))
    assert markdown.count("shapes cannot be multiplied") == 1
    assert 'The same message as in "attention: first", stated there; 1 point lost here.' in markdown
    assert ('"scaled_dot_scores: values" found a mistake in the same part (the scores are divided by d_k instead '
            'of sqrt(d_k))') in markdown
    assert [u.test.test_id for u in undiagnosed_failures([result])] == ["attention_scores::test_a",
                                                                          "attention_scores::test_b"]
