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
import contextlib
import os
import importlib.util
import itertools
import re
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autograder.repair import candidates, edits, pairs
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


def discarded(cell: str, name: str) -> list[str]:
    """The cell with one statement `x = f(..., x, ...)` or `x = x.m(...)` of `name` written as the bare call (its
    result discarded, as a student who thinks the call changes x in place writes it), for each such statement."""
    found = []
    root = edits.definition(ast.parse(cell), name)
    for number, statement in enumerate(n for n in ast.walk(root) if isinstance(n, ast.Assign)):
        target = statement.targets[0] if len(statement.targets) == 1 else None
        if not (isinstance(target, ast.Name) and isinstance(statement.value, ast.Call)) or \
                not any(isinstance(n, ast.Name) and n.id == target.id for n in ast.walk(statement.value)):
            continue
        tree = ast.parse(cell)
        again = [n for n in ast.walk(edits.definition(tree, name)) if isinstance(n, ast.Assign)][number]
        for parent in ast.walk(tree):
            for field, value in ast.iter_fields(parent):
                if isinstance(value, list) and any(item is again for item in value):
                    value[value.index(again)] = ast.Expr(again.value)
        found.append(ast.unparse(tree))
    return found


DISCARDED = [(w, m, n) for w, c, n in DEFINITIONS for m in discarded(c, n)]


@pytest.mark.parametrize("where,mistaken,name", DISCARDED, ids=[f"{w}-{n}-{i}" for i, (w, _, n) in enumerate(DISCARDED)])
def test_every_discarded_result_of_a_correct_definition_is_kept_by_one_edit(where, mistaken, name):
    """`apply_mask(scores, mask)`, `torch.softmax(scores, dim=-1)` or `scores.masked_fill(...)` on a line of its
    own, its result thrown away: one edit (`scores = ...`) gives the correct definition back."""
    original = [dump(c, n) for w, c, n in DEFINITIONS if w == where and n == name][0]
    kept = [e for e in candidates.singles(mistaken, name) if e.kind == "keep"
            and (fixed := candidates.edited(mistaken, name, [e])) is not None and ast.dump(fixed) == original]
    assert kept, f"{where}: no edit keeps the discarded result in {name}"


def none_compared(cell: str, name: str) -> list[str]:
    """The cell with one `x is None` / `x is not None` of `name` written with another comparison (`!=`, `==`, `<`,
    ...), for each such test and comparison."""
    found = []
    count = sum(1 for n in ast.walk(edits.definition(ast.parse(cell), name)) if isinstance(n, ast.Compare)
                and isinstance(n.ops[0], (ast.Is, ast.IsNot)))
    for number in range(count):
        for op in (ast.Eq, ast.NotEq, ast.Lt, ast.Gt, ast.GtE):
            tree = ast.parse(cell)
            compare = [n for n in ast.walk(edits.definition(tree, name)) if isinstance(n, ast.Compare)
                       and isinstance(n.ops[0], (ast.Is, ast.IsNot))][number]
            compare.ops = [op()]
            found.append(ast.unparse(tree))
    return found


NONE_COMPARED = [(w, m, n) for w, c, n in DEFINITIONS for m in none_compared(c, n)]


@pytest.mark.parametrize("where,mistaken,name", NONE_COMPARED,
                         ids=[f"{w}-{n}-{i}" for i, (w, _, n) in enumerate(NONE_COMPARED)])
def test_every_test_for_none_written_as_a_comparison_is_one_edit_away(where, mistaken, name):
    """`if mask != None:` (elementwise on a tensor) or `mask > None` for `mask is not None`: one edit gives the
    correct definition back."""
    original = [dump(c, n) for w, c, n in DEFINITIONS if w == where and n == name][0]
    assert any((fixed := candidates.edited(mistaken, name, [e])) is not None and ast.dump(fixed) == original
               for e in candidates.singles(mistaken, name) if e.kind == "compare"), f"{where}: {name}"


def caller_callee_pairs() -> list[tuple[str, str, str, str]]:
    """(where, cell, caller, callee) for every graded definition of a correct style that names another one."""
    from autograder.grading.submissions import SourceFile
    from autograder.repair import joint
    found = []
    for where, cell, name in DEFINITIONS:
        source = SourceFile("a", "a.py", (cell,))
        for _, other_cell, other in DEFINITIONS:
            if other_cell is cell and other != name and joint.calls(source, name, other):
                found.append((where, cell, name, other))
    return found


CALLERS = caller_callee_pairs()


@pytest.mark.parametrize("where,cell,caller,callee", CALLERS, ids=[f"{w}-{a}-{b}" for w, _, a, b in CALLERS])
def test_a_callers_edit_found_after_its_callees_repair_names_the_students_line(where, cell, caller, callee):
    """The caller is searched on the cell with the callee's repair made, which ast writes back (comments and
    docstrings go, so lines move): each of the caller's edits found there, moved back, is on the student's line
    and shows code that is there."""
    from autograder.grading.submissions import SourceFile
    from autograder.repair import joint, search
    header = edits.definition(ast.parse(cell), callee).body[0].lineno - 1   # comments in the callee, as students
    lines = cell.splitlines(keepends=True)                                   # write them: ast drops them
    indent = lines[header][:len(lines[header]) - len(lines[header].lstrip())]
    cell = "".join(lines[:header] + [f"{indent}# the scores of the keys\n", "\n", f"{indent}# masked\n"] + lines[header:])
    slips = [e for e in candidates.singles(cell, callee) if e.kind in INVERTIBLE and e.key not in ONE_WAY][:2]
    for slip in slips:
        repair = search.Repair(callee, 0, (slip,), 1, 1)
        made = joint.with_repair(SourceFile("a", "a.py", (cell,)), repair)
        assert made is not None
        edited, end, moved = made
        found = candidates.singles(edited.cells[0], caller)
        assert found, f"{where}: no edit of {caller} after {callee}'s repair"
        tree = ast.parse(cell)
        for edit in joint.lines_back(tuple(spread(found, 8)), end, moved):
            code = edit.old.split("  (moved")[0]
            there = [n for n in ast.walk(tree) if isinstance(n, ast.stmt) and n.lineno <= edit.line <= n.end_lineno]
            assert there and any(code in ast.unparse(n) for n in there), \
                f"{where}: line {edit.line} of the student's cell holds no `{code}`"


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


DISCARDED_HELPER = '''
def attention_weights(scores, mask=None):
    if mask is not None:
        apply_mask(scores, mask)
    return F.softmax(scores, dim=-1)
'''
CALLER_AND_CALLEE = '''
def attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(len(K))
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights


class SingleHeadAttention(nn.Module):
    def __init__(self, d_model, d_k):
        super().__init__()
        self.W_Q = nn.Linear(d_model, d_k, bias=False)
        self.W_K = nn.Linear(d_model, d_k, bias=False)
        self.W_V = nn.Linear(d_model, d_k, bias=False)

    def forward(self, x_q, x_kv, mask=None):
        Q, K, V = self.W_Q(x_q), self.W_K(x_kv), self.W_V(x_kv)
        return attention(Q, V, K, mask)
'''
# two slips in one function, one of which an edit fixes alone on some calls: the scores from V on every call, and
# the mask read from V (seen only where V has a zero); then one that raises on every call before the other shows
MASK_AND_SCORE = '''
def attention(Q, K, V, mask=None):
    scores = Q @ V.transpose(-2, -1) / math.sqrt(K.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(V == 0, float("-inf"))
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
'''
RAISES_FIRST = '''
def attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / K.shape[-1]
    if mask > None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
'''
HANGING = '''

def causal_mask(T):
    total = 0
    while True:
        total += 1
'''
CRASHING = '''
import os


def attention_weights(scores, mask=None):
    os._exit(0)
'''
# the reference's results are exact at these limits (tests/test_adversarial.py); a hang costs one second of CPU
QUICK_LIMITS = '{"call_seconds": 1, "sequence_call_seconds": 0.02, "load_seconds": 6}'


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
    files["caller_and_callee"] = {"single_head_attention.py": layer + "\n\n" + CALLER_AND_CALLEE}
    files["hanging"] = {"attention_scores.py": scores + "\n\n" + HANGING}
    files["mask_and_score"] = {"single_head_attention.py": layer + "\n\n" + MASK_AND_SCORE}
    files["raises_first"] = {"single_head_attention.py": layer + "\n\n" + RAISES_FIRST}
    files["crashing"] = {"attention_scores.py": scores + "\n\n" + CRASHING}
    with environment(ATTNKIT_SANDBOX_LIMITS=QUICK_LIMITS):
        results = grade(write_class(root / "in", files), root / "out")
    return files, results


@contextlib.contextmanager
def environment(**values: str):
    before = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


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


@pytest.mark.parametrize("student,lines", [("mask_and_score", ["Q @ V.transpose", "V == 0"]),
                                           ("raises_first", ["/ K.shape[-1]", "mask > None"])])
def test_two_slips_in_one_function_one_fixed_alone_on_some_calls_are_both_repaired(graded, student, lines):
    # one slip's edit alone makes some wrong calls right, or stops the crash: the search pairs it with the others first
    files, results = graded
    text = files[student]["single_head_attention.py"]
    test = carrying(results[student], "attention")
    assert sorted(f.where for f in test.repair) == [f"line {line_of(text, code)}" for code in lines], \
        f"{student}: {test.repair or test.repair_tried}"
    if student == "mask_and_score":   # each edit made by text on its line (the bench makes none in an `if`'s test)
        fixed = bench().fixed_text(text, test.repair)
        assert fixed is not None and not any(code in fixed.split("def attention")[-1] for code in lines)


def test_a_helpers_discarded_result_is_kept_on_the_students_line(tmp_path):
    """`apply_mask(scores, mask)` on a line of its own: the diagnosis names the mask as not applied, and the search
    (asked for named parts too, ATTNKIT_REPAIR=all) shows the line that applies it."""
    from tests.classroom import grade, write_class
    text = solution_text("attention_scores") + "\n\n" + DISCARDED_HELPER
    with environment(ATTNKIT_REPAIR="all"):
        results = grade(write_class(tmp_path / "in", {"discarded": {"attention_scores.py": text}}), tmp_path / "out",
                        workers=1)
    test = carrying(results["discarded"], "attention_weights")
    assert [(f.edit, f.where, f.old, f.new) for f in test.repair] == [
        ("result-kept", f"line {line_of(text, '    apply_mask(scores, mask)')}", "apply_mask(scores, mask)",
         "scores = apply_mask(scores, mask)")]


def test_two_slips_in_a_caller_and_its_callee_are_both_shown(graded):
    """The layer's own slip (K and V swapped in its call) cannot be repaired while `attention` is wrong too: it is
    searched again with attention's repair made, and its repair shows both edits, the callee's as made too."""
    from autograder.reporting.feedback import feedback_markdown
    files, results = graded
    text = files["caller_and_callee"]["single_head_attention.py"]
    callee = carrying(results["caller_and_callee"], "attention")
    assert [(f.where, f.old, f.new, f.part) for f in callee.repair] == [
        (f"line {line_of(text, 'len(K)')}", "len(K)", "K.shape[-1]", "")]
    caller = carrying(results["caller_and_callee"], "SingleHeadAttention")
    assert [(f.where, f.part) for f in caller.repair] == [(callee.repair[0].where, "attention"),
                                                         (f"line {line_of(text, 'attention(Q, V, K, mask)')}", "")]
    assert caller.repair[1].edit in ("names-swapped", "name-swapped", "arguments-swapped")
    fixed = bench().fixed_text(text, caller.repair)   # both edits made by text: the layer's checks pass (bench)
    assert "K.shape[-1]" in fixed and "attention(Q, K, V, mask)" in fixed
    assert "with the fix found for attention made too (on line" in feedback_markdown(results["caller_and_callee"])
    from autograder.reporting.repairs import repairs_by_edit
    counted = {c.edit: c.questions for c in repairs_by_edit([results["caller_and_callee"]])}
    assert counted["len-to-last-size"] == ("attention",)   # the callee's edit counted once, where it is


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
    assert counted["len-to-last-size"] == ("caller_and_callee", "two_slips") and counted["keepdim-added-to-sum"] == ("two_slips",)
    listed = {s for entry in undiagnosed_failures(list(results.values())) for s, _ in entry.students}
    assert not {"sigmoid", "two_slips"} & listed
    assert 'id="repairs"' in class_report_html(list(results.values()))


@pytest.mark.parametrize("student,question", [("hanging", "causal_mask"), ("crashing", "attention_weights")])
def test_a_part_that_hung_or_crashed_the_sandbox_is_not_searched(graded, student, question):
    """Every candidate of code that hangs or ends its process would do the same, at one call's limit each: the
    part keeps its symptom and costs no search (the rest of the file is graded as usual)."""
    _, results = graded
    failed = [t for t in results[student].tests if t.question == question and t.status == FAILED]
    assert failed and any(("CPU time" in t.output or "stopped the Python process" in t.output) for t in failed)
    assert not any(t.repair or t.repair_tried or t.repair_stopped for t in results[student].tests)
    assert all(t.status != FAILED for t in results[student].tests if t.question in ("dot_scores", "GeneralScore"))


def test_a_search_stopped_by_the_students_budget_says_so(tmp_path):
    """With a budget of 5 candidates, the search of a rewrite stops after 5: the feedback says it stopped, never
    that no edit was found (ATTNKIT_REPAIR_BUDGET, docs/diagnosis.md)."""
    from autograder.reporting.feedback import feedback_markdown
    from autograder.reporting.gradescope import results_json
    from tests.classroom import grade, write_class
    files = {"rewrite": {"attention_scores.py": solution_text("attention_scores") + "\n\n" + REWRITE}}
    with environment(ATTNKIT_REPAIR_BUDGET="600,5"):
        results = grade(write_class(tmp_path / "in", files), tmp_path / "out", workers=1)
    test = carrying(results["rewrite"], "softmax_entropy")
    assert test.repair_stopped and test.repair_tried == 5 and not test.repair
    feedback = feedback_markdown(results["rewrite"])
    assert ("The search for a small edit of your `softmax_entropy` that makes every check pass stopped at its limit "
            "after 5 edits, before trying them all") in feedback
    assert "No small edit" not in feedback
    shown = "\n".join(t["output"] for t in results_json(results["rewrite"])["tests"])
    assert "stopped at its limit after 5 edits" in shown and "No small edit" not in shown


def test_the_budget_setting_is_read_and_refused_when_malformed():
    from autograder.repair import search
    with environment(ATTNKIT_REPAIR_BUDGET="2.5,7"):
        assert search.budget_setting() == (2.5, 7)
    for wrong in ("7", "a,b", "-1,3", "1,2,3"):
        with environment(ATTNKIT_REPAIR_BUDGET=wrong), pytest.raises(ValueError, match="ATTNKIT_REPAIR_BUDGET"):
            search.budget_setting()
    now = [0.0]
    budget = search.Budget(seconds=4, candidates=3, clock=lambda: now[0])   # made at 0: ends at 4
    now[0] = 1.0
    assert not budget.spent(3) and budget.spent(4)    # time left, 3 candidates left
    budget.take(3)
    assert budget.spent() and not budget.out_of_time()
    now[0] = 5.0
    assert budget.out_of_time() and budget.spent(0)


# --- the student's code shown as code, and inert ---------------------------------------------------------

HOSTILE_CODE = ["torch.sigmoid(q + k)  # <script>alert(1)</script>", "x | y", "`ticks` **bold** [a](http://e.com)",
                "a <img src=x onerror=alert(1)> & b", "``double``", " padded "]


@pytest.mark.parametrize("old", HOSTILE_CODE)
def test_a_repair_shows_the_students_code_as_inert_code_in_markdown_and_html(old):
    """The edit's code is the student's: in Markdown it is a code span (shown literally, never markup); in HTML a
    <code> element, escaped. Rendered by a real CommonMark renderer where one is installed."""
    from autograder.reporting.escape import html_coded, markdown_lines
    from autograder.reporting.repairs import repair_lines
    fix = Fix("call-sigmoid-to-tanh", "line 35", old, "torch.tanh(q + k)")
    test = Result("a::t", "t", "a", "AdditiveScore", 0.0, 2.0, FAILED, "differs", repair=(fix,), repair_tried=7)
    line = repair_lines(test)[0]
    assert str(line) == f"Fix found: on line 35, `{old}` → `torch.tanh(q + k)` makes every check of AdditiveScore pass."
    (markdown,) = markdown_lines(line)
    html = html_coded(line)
    assert "<script" not in html and "<img" not in html and html.count("<code>") == 2
    assert html.startswith("Fix found: on line 35, <code>") and "</code> → <code>torch.tanh(q + k)</code> makes" in html
    rendered = commonmark(markdown)
    if rendered is not None:   # the code as the student wrote it, in code elements; nothing else became markup
        import html as html_module
        codes = [html_module.unescape(c) for c in re.findall(r"<code>(.*?)</code>", rendered, re.S)]
        assert codes == [old, "torch.tanh(q + k)"], rendered
        outside = re.sub(r"<code>.*?</code>", "", rendered, flags=re.S)
        assert not re.search(r"<(?!/?(p|code)>)", outside), rendered
        assert html_module.unescape(re.sub(r"<[^>]+>", "", outside)).strip() == \
            "Fix found: on line 35,  →  makes every check of AdditiveScore pass."
    else:   # no renderer: the spans are delimited by backtick runs longer than any inside them
        assert markdown.startswith("Fix found: on line 35, `") and "torch.tanh(q + k)`" in markdown


def commonmark(text: str) -> str | None:
    try:
        from markdown_it import MarkdownIt
    except ImportError:
        return None
    return MarkdownIt("commonmark", {"html": True, "linkify": False}).render(text)


# --- which pairs are tried ----------------------------------------------------------------------------------

def made_up(places: list[int]) -> list[edits.Edit]:
    return [edits.Edit(place, number, "call", f"a{number}", f"b{number}", 1, f"k{number}")
            for number, place in enumerate(places)]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 30), min_size=0, max_size=40), st.data())
def test_pairs_hold_each_partial_repair_with_every_other_edit_and_every_pair_when_all_fit(places, data):
    singles = made_up(places)
    near = data.draw(st.lists(st.sampled_from(singles), max_size=8, unique_by=id)) if singles else []
    partial = data.draw(st.lists(st.sampled_from(singles), max_size=4, unique_by=id)) if singles else []
    found = pairs.pairs_of(near, singles, partial)
    keys = [frozenset(map(id, p)) for p in found]
    assert len(found) <= pairs.PAIRS and len(set(keys)) == len(keys)
    assert all(len(p) == 2 and p[0].index < p[1].index for p in found)   # two places, in the order of the code
    possible = {frozenset((id(a), id(b))) for a in singles for b in singles if a.index != b.index}
    wanted = [frozenset((id(a), id(b))) for a in partial[:pairs.PARTIAL] for b in singles if a.index != b.index]
    if len(set(wanted)) <= pairs.PAIRS:
        assert set(wanted) <= set(keys)
    if len(possible) <= pairs.PAIRS:
        assert set(keys) == possible


def same_statement_pairs(cell: str, name: str) -> list[tuple]:
    found = candidates.singles(cell, name)
    return [(a, b) for i, a in enumerate(found) for b in found[i + 1:]
            if a.line == b.line and a.index != b.index and "(moved" not in a.new + b.new]


@pytest.mark.parametrize("where,cell,name", DEFINITIONS, ids=[f"{w}-{n}" for w, _, n in DEFINITIONS])
def test_two_edits_of_one_statement_made_as_shown_in_either_order_give_the_repair(where, cell, name):
    # what the student reads is what was checked: each shown edit made by text on its line, in either order
    found = same_statement_pairs(cell, name)
    touching = [(a, b) for a, b in found if a.old in b.new or b.old in a.new]
    for a, b in (touching[:6] + spread_pairs(found, 6)):
        made = candidates.edited(cell, name, [a, b])
        if made is None or any(bench().fixed_text(cell, [as_fix(e)]) is None for e in (a, b)):
            continue   # nested edits are never made; the bench makes no edit of an `if`'s test by text
        fixes = [as_fix(e) for e in candidates.shown_apart(cell, name, [a, b])]
        for order in (fixes, fixes[::-1]):
            text = bench().fixed_text(cell, order)
            assert text is not None and dump(text, name) == ast.dump(ast.parse(ast.unparse(made)).body[0]), \
                f"{where}: {[(f.old, f.new) for f in order]} made as shown is not the edit checked"


def as_fix(edit) -> Fix:
    return Fix("x", f"line {edit.line}", edit.old, edit.new)


def spread_pairs(found: list, count: int) -> list:
    return found[::max(1, len(found) // count)][:count]
