"""Where an error is, said as the student sees their file, and a generated `.py` run away from its checks
(walk 34b, finding 8): feedback names `f.py line 82` (a .py split into pieces keeps the file's lines) or a notebook
cell by its first line, never the kit's piece number (`f.py#0`); a solution or handout `.py` run outside its place
says in one sentence what it needs, not otter's traceback."""
from __future__ import annotations

import linecache
import shutil
import subprocess
import sys

import pytest

from autograder import paths
from tests.diagnosis_cases import child_harness


@pytest.fixture(scope="module")
def harness():
    return child_harness()


def raised(harness, filename: str, source: str) -> dict:
    """describe_error of running `source` compiled as the harness compiles a student's piece or cell."""
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    try:
        exec(compile(source, filename, "exec"), {})
    except BaseException as exc:  # noqa: BLE001
        return harness.describe_error(exc)
    raise AssertionError("the source ran")


@pytest.mark.parametrize("piece", [0, 1, 7])
def test_a_py_error_names_the_file_and_its_line_never_the_piece(harness, piece):
    source = "\n" * 40 + "x = [1]\ny = x[9]\n"     # a later piece of a split .py: padded to the file's lines
    error = raised(harness, f"<student:cross_attention.py#{piece}>", source)
    assert error["where"] == ["cross_attention.py line 42: y = x[9]"], error
    broken = raised(harness, f"<student:cross_attention.py#{piece}>", "\n" * 81 + "def f(:\n    pass\n")
    assert "#" not in broken["message"] and "(cross_attention.py line 82)" in broken["message"], broken


def test_a_notebook_error_names_the_cell_by_its_first_line_and_the_line_in_it(harness):
    source = "\n# the mask\ndef key_padding_mask(lengths, T_k):\n    return lengths[99]\nkey_padding_mask([1], 3)\n"
    error = raised(harness, "<student:cross_attention.ipynb#3>", source)
    assert error["where"][-1] == ("cross_attention.ipynb, the cell starting `# the mask`, line 4: "
                                  "return lengths[99]"), error
    assert not [w for w in error["where"] if "#3" in w]


def test_a_solution_py_run_away_from_its_checks_says_what_it_needs_and_the_handout_py_says_so_too(tmp_path):
    name = paths.ASSIGNMENTS[0]
    shutil.copy2(paths.SOLUTIONS_DIR / name / f"{name}.py", tmp_path / f"{name}.py")
    run = subprocess.run([sys.executable, f"{name}.py"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    said = run.stderr.strip()
    assert run.returncode != 0 and "Traceback" not in said and len(said.splitlines()) == 1, said
    assert said.startswith("The public checks are read from ") and "which is not there: run this solution where " \
        f"`make assignments` wrote it, solutions/{name}/ in the kit" in said, said
    handout = (paths.ASSIGNMENTS_DIR / name / f"{name}.py").read_text(encoding="utf-8")   # the same guard, its words
    assert "which is not there: run this file in the handout folder it came in, beside its `tests` folder" in handout
