"""Public checks (otter test files) pass the solutions and fail the stubs with their messages."""
from __future__ import annotations

import runpy

import otter
import pytest

from autograder import paths
from autograder.authoring.master import read_master


def checks(name):
    master = read_master(paths.SOURCE_DIR / f"{name}.py")
    return [(name, e) for e in master.exercises() if master.of("public", e)]


ALL = [pair for name in paths.ASSIGNMENTS for pair in checks(name)]


def run_check(name, exercise, source_folder, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # otter writes its log to the working folder
    env = runpy.run_path(str(source_folder / name / f"{name}.py"), run_name="checked")
    grader = otter.Notebook(tests_dir=str(paths.ASSIGNMENTS_DIR / name / "tests"))
    return grader.check(exercise, env)


@pytest.mark.parametrize("name,exercise", ALL)
def test_solution_passes_public_check(name, exercise, monkeypatch, tmp_path):
    result = run_check(name, exercise, paths.SOLUTIONS_DIR, monkeypatch, tmp_path)
    assert result.passed_all, repr(result)


@pytest.mark.parametrize("name,exercise", ALL)
def test_stub_fails_public_check_with_a_message(name, exercise, monkeypatch, tmp_path):
    result = run_check(name, exercise, paths.ASSIGNMENTS_DIR, monkeypatch, tmp_path)
    assert not result.passed_all
    assert "replace this line with your code" in repr(result)


@pytest.mark.parametrize("mistake,message", [
    # the diagnosis names it (fixed texts say what is checked, never a remedy: test_diagnosis_messages.py)
    ("return Q @ K.transpose(-2, -1)\n", "the scores are K Q^T instead of Q K^T"),
])
def test_public_check_explains_a_wrong_axis(mistake, message, monkeypatch, tmp_path):
    source = (paths.SOLUTIONS_DIR / "attention_scores" / "attention_scores.py").read_text()
    wrong = source.replace(mistake, "return K @ Q.transpose(-2, -1)\n", 1)
    assert wrong != source
    (tmp_path / "attention_scores").mkdir()
    (tmp_path / "attention_scores" / "attention_scores.py").write_text(wrong)
    result = run_check("attention_scores", "dot_scores", tmp_path, monkeypatch, tmp_path)
    assert not result.passed_all and message in repr(result)


def check_variant(assignment, exercise, right, wrong, monkeypatch, tmp_path):
    source = (paths.SOLUTIONS_DIR / assignment / f"{assignment}.py").read_text()
    variant = source.replace(right, wrong, 1)
    assert variant != source
    (tmp_path / assignment).mkdir()
    (tmp_path / assignment / f"{assignment}.py").write_text(variant)
    return run_check(assignment, exercise, tmp_path, monkeypatch, tmp_path)


MASK_LINE = 'return scores.masked_fill(mask == 0, float("-inf"))'


@pytest.mark.parametrize("fill", ["-1e6", "-1e9", "torch.finfo(scores.dtype).min"])
def test_public_mask_check_accepts_every_fill_of_the_rule(fill, monkeypatch, tmp_path):
    """The masking rule (exactly zero weight for allowed scores within 1e4) holds for these fills."""
    result = check_variant("attention_scores", "apply_mask", MASK_LINE,
                           f"return scores.masked_fill(mask == 0, {fill})", monkeypatch, tmp_path)
    assert result.passed_all, repr(result)


def test_public_mask_check_rejects_a_leaky_fill(monkeypatch, tmp_path):
    result = check_variant("attention_scores", "apply_mask", MASK_LINE, "return scores.masked_fill(mask == 0, -30.0)",
                           monkeypatch, tmp_path)
    assert not result.passed_all and "must be exactly 0" in repr(result)


def test_public_causal_check_accepts_the_lessons_float_mask(monkeypatch, tmp_path):
    result = check_variant("attention_scores", "causal_mask", "return torch.tril(torch.ones(T, T, dtype=torch.bool))",
                           "return torch.tril(torch.ones(T, T))", monkeypatch, tmp_path)
    assert result.passed_all, repr(result)


def test_public_scale_check_rejects_d_pow_one_half(monkeypatch, tmp_path):
    """d_k ** 1/2 is d_k / 2; the public check uses d_k = 9 so that it cannot pass for sqrt(d_k)."""
    result = check_variant("single_head_attention", "attention", "/ math.sqrt(K.shape[-1])  # score",
                           "/ K.shape[-1] ** 1/2  # score", monkeypatch, tmp_path)
    assert not result.passed_all and "sqrt(d_k)" in repr(result)
