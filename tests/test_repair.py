"""The repair search (autograder/repair/): edits of a student's own definition, judged by every hidden check of it.

The edit space is proven by a generator: every invertible single edit of every correct definition (the
reference's and every correct style's in tests/catalogue/correct) is undone by one edit the search tries. The
search is proven through the real engine (sandbox, hidden tests): a slip gets its edit on the student's line, two
slips in one function get both, a rewrite gets the plain statement that no small edit was found, and a passing
student gets no search at all. bench/bench_repairs.py measures the rest (catalogue, generated mistakes, held-out
folders) without counting against the suite's time.
"""
from __future__ import annotations

import ast
import os
import importlib.util
import itertools
import sys
from pathlib import Path

import pytest

from autograder.repair import candidates, edits
from autograder.results import FAILED, Fix, StudentResult
from autograder.results import TestResult as Result
from tests.classroom import solution_text

ROOT = Path(__file__).resolve().parents[1]
GRADED = {"attention_scores": ["dot_scores", "scaled_dot_scores", "GeneralScore", "AdditiveScore", "apply_mask",
                               "attention_weights", "causal_mask", "padding_mask", "softmax_entropy"],
          "single_head_attention": ["attention", "SingleHeadAttention"]}
# kinds of edit whose every instance has an inverse in the same space (a call's sibling, an axis among AXES, two
# names or arguments swapped back, a comparison flipped back, @ and * exchanged, a returned pair swapped back)
INVERTIBLE = {"call", "axis", "name", "swap", "order", "compare"}
ONE_WAY = {"len-to-last-size", "negation-dropped", "negation-as-comparison"}


def load(path: Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def bench():
    if "bench_repairs" not in sys.modules:
        spec = importlib.util.spec_from_file_location("bench_repairs", ROOT / "bench" / "bench_repairs.py")
        sys.modules["bench_repairs"] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules["bench_repairs"])
    return sys.modules["bench_repairs"]


def correct_definitions() -> list[tuple[str, str, str]]:
    """(where, cell, name) for every graded definition of the reference and of every correct style."""
    found = []
    for assignment, names in GRADED.items():
        text = solution_text(assignment)
        found += [(f"reference {assignment}", text, n) for n in names]
    for path in sorted((ROOT / "tests" / "catalogue" / "correct").glob("*.py")):
        entry = load(path)
        defined = {n.name for n in ast.parse(entry.CODE).body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
        found += [(path.stem, entry.CODE, n) for n in GRADED[entry.ASSIGNMENT] if n in defined]
    return found


def spread(found: list, count: int) -> list:
    """`count` edits taken in turn from each kind, so that every kind is represented."""
    by_kind: dict[str, list] = {}
    for edit in found:
        by_kind.setdefault(edit.kind, []).append(edit)
    return [e for e in itertools.chain.from_iterable(itertools.zip_longest(*by_kind.values())) if e][:count]


def dump(cell: str, name: str) -> str:
    return ast.dump(edits.definition(ast.parse(cell), name))


DEFINITIONS = correct_definitions()


@pytest.mark.parametrize("where,cell,name", DEFINITIONS, ids=[f"{w}-{n}" for w, _, n in DEFINITIONS])
def test_every_invertible_slip_of_a_correct_definition_is_one_edit_of_the_search_away(where, cell, name):
    original = dump(cell, name)
    found = candidates.singles(cell, name)
    assert found, f"{where}: no edit of {name}"
    for slip in spread([e for e in found if e.kind in INVERTIBLE and e.key not in ONE_WAY], 4):
        mistaken = candidates.apply(cell, name, [slip])
        assert mistaken is not None and dump(mistaken, name) != original
        undone = [e for e in candidates.singles(mistaken, name) if e.kind == slip.kind   # an inverse is of its kind
                  and (fixed := candidates.edited(mistaken, name, [e])) is not None and ast.dump(fixed) == original]
        assert undone, f"{where}: no single edit undoes `{slip.old}` -> `{slip.new}` in {name}"


def test_two_edits_compose_and_nested_edits_are_refused():
    cell = solution_text("attention_scores")
    found = candidates.singles(cell, "AdditiveScore")
    tanh = next(e for e in found if e.key == "call-tanh-to-sigmoid")
    squeeze = next(e for e in found if e.kind == "axis" and "squeeze(" in e.old and e.index != tanh.index)
    both = candidates.apply(cell, "AdditiveScore", [tanh, squeeze])
    assert both is not None and "torch.sigmoid" in both and squeeze.new in both
    containing = [e for e in found if e.index != tanh.index and tanh.old in e.old and e.old != tanh.old]
    assert containing
    for edit in containing:   # an edit of an expression that holds another edit's place would lose that edit
        assert candidates.apply(cell, "AdditiveScore", [edit, tanh]) is None


def test_a_repair_is_stored_and_read_back(tmp_path):
    from autograder.results import load as load_result, save
    fix = Fix("call-sigmoid-to-tanh", "line 35", "torch.sigmoid(q + k)", "torch.tanh(q + k)")
    test = Result("a::t", "t", "a", "AdditiveScore", 0.0, 2.0, FAILED, "differs", repair=(fix,), repair_tried=7)
    save(StudentResult("s", (test,)), tmp_path / "s.json")
    again = load_result(tmp_path / "s.json").tests[0]
    assert again.repair == (fix,) and again.repair_tried == 7
    with pytest.raises(ValueError):
        Fix("call sigmoid", "line 1", "a", "b")


# --- through the real engine ---------------------------------------------------------------------------

SIGMOID = '''
class AdditiveScore(nn.Module):
    def __init__(self, d_q, d_k, d_h):
        super().__init__()
        self.W_q = nn.Linear(d_q, d_h, bias=False)
        self.W_k = nn.Linear(d_k, d_h, bias=False)
        self.v = nn.Linear(d_h, 1, bias=False)

    def forward(self, Q, K):
        q = self.W_q(Q).unsqueeze(2)
        k = self.W_k(K).unsqueeze(1)
        return self.v(torch.sigmoid(q + k)).squeeze(-1)
'''
TWO_SLIPS = '''
def attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-1, -2) / math.sqrt(len(K))
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    e = torch.exp(scores - scores.amax(dim=-1, keepdim=True))
    weights = e / e.sum(-1)
    return weights @ V, weights
'''
REWRITE = '''
def softmax_entropy(weights):
    flat = weights.reshape(-1)
    return torch.stack([flat[:1] for _ in range(weights.shape[0])]).reshape(weights.shape[:-1])
'''


@pytest.fixture(scope="module", autouse=True)
def searching():
    """The search as users get it (tests/conftest.py switches it off for the rest of the suite)."""
    before = os.environ.pop("ATTNKIT_REPAIR", None)
    yield
    if before is not None:
        os.environ["ATTNKIT_REPAIR"] = before


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    from tests.classroom import grade, write_class
    root = tmp_path_factory.mktemp("repairs")
    scores, layer = solution_text("attention_scores"), solution_text("single_head_attention")
    files = {"sigmoid": {"attention_scores.py": scores + "\n\n" + SIGMOID},
             "two_slips": {"single_head_attention.py": layer + "\n\n" + TWO_SLIPS},
             "rewrite": {"attention_scores.py": scores + "\n\n" + REWRITE},
             "named": {"attention_scores.py": scores + "\n\n" + SIGMOID.replace("sigmoid", "relu")},
             "right": {"attention_scores.py": scores, "single_head_attention.py": layer}}
    results = grade(write_class(root / "in", files), root / "out")
    return files, results


def forward(text: str) -> str:
    return ast.dump(edits.method(edits.definition(ast.parse(text), "AdditiveScore"), "forward").body[-1])


def carrying(result: StudentResult, question: str) -> Result:
    found = [t for t in result.tests if t.question == question and (t.repair or t.repair_tried)]
    assert len(found) == 1, f"{question}: {len(found)} checks carry the search"
    return found[0]


def line_of(text: str, code: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if code in line and not line.lstrip().startswith("#")
                and n > len(text.splitlines()) - 20)


def test_a_slip_gets_its_edit_on_the_students_line(graded):
    from autograder.reporting.feedback import feedback_markdown
    from autograder.reporting.gradescope import results_json
    files, results = graded
    text = files["sigmoid"]["attention_scores.py"]
    test = carrying(results["sigmoid"], "AdditiveScore")
    line = line_of(text, "torch.sigmoid(q + k)")
    assert [(f.edit, f.where, f.old, f.new) for f in test.repair] == [
        ("call-sigmoid-to-tanh", f"line {line}", "torch.sigmoid(q + k)", "torch.tanh(q + k)")]
    feedback = feedback_markdown(results["sigmoid"]).replace("\\", "")
    assert (f"On line {line}, `torch.sigmoid(q + k)` → `torch.tanh(q + k)` makes every check of AdditiveScore "
            "pass") in feedback.replace("Fix found: on", "On")
    shown = "\n".join(t["output"] for t in results_json(results["sigmoid"])["tests"])
    assert f"one change on line {line} makes every check of AdditiveScore pass" in shown
    assert "torch.tanh(q + k)" not in shown   # Gradescope is read while the student may hand in again
    fixed = bench().fixed_text(text, test.repair)   # the edit made by text, as a student would make it
    assert forward(fixed) == forward(solution_text("attention_scores"))


def test_two_slips_in_one_function_are_shown_as_two_edits(graded):
    files, results = graded
    text = files["two_slips"]["single_head_attention.py"]
    test = carrying(results["two_slips"], "attention")
    assert [(f.where, f.old, f.new) for f in test.repair] == [
        (f"line {line_of(text, 'len(K)')}", "len(K)", "K.shape[-1]"),
        (f"line {line_of(text, 'e.sum(-1)')}", "e.sum(-1)", "e.sum(-1, keepdim=True)")]
    from autograder.reporting.feedback import feedback_markdown
    assert "two edits together make every check of attention pass" in feedback_markdown(results["two_slips"])
    fixed = bench().fixed_text(text, test.repair)
    assert "K.shape[-1]" in fixed.split("def attention")[-1] and "e.sum(-1, keepdim=True)" in fixed


def test_a_rewrite_gets_no_edit_and_keeps_its_symptom(graded):
    from autograder.reporting.feedback import feedback_markdown
    _, results = graded
    test = carrying(results["rewrite"], "softmax_entropy")
    assert not test.repair and test.repair_tried > 0 and test.output
    feedback = feedback_markdown(results["rewrite"]).replace("\\", "")
    assert f"No small edit of your `softmax_entropy` was found that makes every check pass ({test.repair_tried} " \
           in feedback


def test_students_who_pass_cost_no_search(graded):
    _, results = graded
    assert all(t.status != FAILED for t in results["right"].tests if t.question != "saturation")
    assert not any(t.repair or t.repair_tried for t in results["right"].tests)
    assert not any(t.repair or t.repair_tried for r in results.values() for t in r.tests if t.status != FAILED)


def test_a_named_mistake_costs_no_search_by_default(graded):
    _, results = graded
    failed = [t for t in results["named"].tests if t.question == "AdditiveScore" and t.status == FAILED]
    assert failed and all(t.diagnoses for t in failed)   # ReLU for tanh: the diagnosis names it
    assert not any(t.repair or t.repair_tried for t in results["named"].tests)


def test_the_class_report_counts_repairs_by_edit(graded):
    from autograder.reporting.class_report import class_report_html
    from autograder.reporting.class_stats import undiagnosed_failures
    from autograder.reporting.repairs import repairs_by_edit
    _, results = graded
    counted = {c.edit: c.students for c in repairs_by_edit(list(results.values()))}
    assert counted["call-sigmoid-to-tanh"] == ("sigmoid",)
    assert counted["len-to-last-size"] == ("two_slips",) and counted["keepdim-added-to-sum"] == ("two_slips",)
    listed = {s for entry in undiagnosed_failures(list(results.values())) for s, _ in entry.students}
    assert not {"sigmoid", "two_slips"} & listed
    assert 'id="repairs"' in class_report_html(list(results.values()))
