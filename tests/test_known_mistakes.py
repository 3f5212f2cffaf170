"""Public checks name a known mistake from numbers made at `make assignments` time, in the student's kernel."""
from __future__ import annotations

import ast
from dataclasses import replace

import otter
import pytest

from autograder import paths
from autograder.authoring.known import known_block, known_table
from autograder.authoring.master import Cell, read_master
from autograder.authoring.render import public_test_file
from autograder.diagnosis import MISTAKES
from tests.classroom import solution_text
from tests.diagnosis_cases import WRONG, student_namespace

CHECK = '''@test_case(points=None, hidden=False)
def test_scale_and_mask(attention):
    import torch
    Q = torch.tensor([[[1.0, 0.0, 2.0, 1.0]]])
    K = torch.tensor([[[1.0, 1.0, 1.0, 1.0], [0.0, 2.0, 0.0, -1.0], [3.0, 0.0, 1.0, 0.0]]])
    V = torch.tensor([[[1.0, 0.0], [0.0, 2.0], [5.0, 5.0]]])
    result = attention(Q, K, V, torch.tensor([1, 1, 0]))
    output, weights = right_result("test_scale_and_mask", 0)
    assert torch.allclose(result[1].double(), weights.double(), atol=1e-5), (
        "the weights are wrong." + known_mistake("test_scale_and_mask", 0, result))'''


@pytest.fixture(scope="module")
def master():
    real = read_master(paths.SOURCE_DIR / "single_head_attention.py")
    cells = tuple(c for c in real.cells if not (c.role == "public" and c.exercise == "attention"))
    return replace(real, cells=cells + (Cell("public", CHECK, "attention"),))


def test_table_holds_each_telling_mistake_once(master):
    table, right = known_table(master, "attention")
    (call,) = table["test_scale_and_mask"]
    assert right["test_scale_and_mask"][0][0] is True
    titles = [title for title, _, _ in call]
    assert MISTAKES["mask-after-softmax"] in titles and MISTAKES["scale-missing"] in titles
    assert MISTAKES["mask-not-applied"] in titles
    assert all(is_pair and len(values) == 2 for _, is_pair, values in call)


def test_the_block_is_numbers_and_the_fixed_comparison_only(master):
    """The handout gets no model or reference code: a table of plain values, and the helper that compares."""
    tree = ast.parse(known_block(master, "attention"))
    kinds = [type(node).__name__ for node in tree.body]
    assert kinds == ["Assign", "Assign", "Assign", "FunctionDef", "FunctionDef", "FunctionDef"]
    assert [f.name for f in tree.body[3:]] == ["known_mistake", "right_result", "_same"]
    allowed = (ast.Dict, ast.List, ast.Tuple, ast.Constant, ast.UnaryOp, ast.USub, ast.Load)
    for table in (tree.body[1].value, tree.body[2].value):
        assert all(isinstance(n, allowed) or (isinstance(n, ast.Name) and n.id in ("nan", "inf"))
                   for n in ast.walk(table))


@pytest.mark.parametrize("entry,mistake", [("att_mask_after_softmax", "mask-after-softmax"),
                                           ("att_unscaled", "scale-missing"),
                                           ("att_mask_not_assigned", "mask-not-applied")])
def test_public_check_names_the_mistake_in_the_students_kernel(master, tmp_path, monkeypatch, entry, mistake):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "attention.py").write_text(public_test_file(master, "attention"))
    monkeypatch.chdir(tmp_path)
    env = student_namespace("single_head_attention", WRONG[entry].CODE)
    result = otter.Notebook(tests_dir=str(tmp_path / "tests")).check("attention", env)
    assert not result.passed_all
    text = repr(result)
    assert MISTAKES[mistake] in text
    assert [t for t in MISTAKES.values() if t in text] == [MISTAKES[mistake]]


def test_public_check_passes_the_solution_and_names_nothing(master, tmp_path, monkeypatch):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "attention.py").write_text(public_test_file(master, "attention"))
    monkeypatch.chdir(tmp_path)
    env = student_namespace("single_head_attention", solution_text("single_head_attention"), complete=True)
    assert otter.Notebook(tests_dir=str(tmp_path / "tests")).check("attention", env).passed_all
