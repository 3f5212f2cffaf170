"""Notebooks run top to bottom in a real Jupyter kernel (nbclient), as a student would run them."""
from __future__ import annotations

import shutil

import nbformat
import pytest
from nbclient import NotebookClient

from autograder import paths

pytestmark = pytest.mark.slow


def execute(tmp_path, kind: str, name: str) -> nbformat.NotebookNode:
    """Run a copy laid out like the repository, so relative test folders resolve as they do for users."""
    shutil.copytree(paths.ASSIGNMENTS_DIR / name, tmp_path / "assignments" / name)
    shutil.copytree(paths.SOLUTIONS_DIR / name, tmp_path / "solutions" / name)
    folder = tmp_path / kind / name
    notebook = nbformat.read(folder / f"{name}.ipynb", as_version=4)
    NotebookClient(notebook, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(folder)}}).execute()
    return notebook


def text_of(cell) -> str:
    parts = []
    for output in cell.get("outputs", []):
        if output.get("output_type") == "stream":
            parts.append(output.get("text", ""))
        elif "data" in output:
            parts.append(output["data"].get("text/plain", ""))
    return "".join(parts)


def errors(notebook) -> list[str]:
    return [f"{o.get('ename')}: {o.get('evalue')}" for c in notebook.cells if c.cell_type == "code"
            for o in c.get("outputs", []) if o.get("output_type") == "error"]


def cells_tagged(notebook, tag):
    return [c for c in notebook.cells if tag in c.metadata.get("tags", [])]


@pytest.mark.parametrize("name", paths.ASSIGNMENTS)
def test_solution_notebook_runs_and_passes_every_check(tmp_path, name):
    notebook = execute(tmp_path, "solutions", name)
    assert not errors(notebook)
    checks = [c for c in cells_tagged(notebook, "kit-check") if "check_all" not in c.source]
    assert checks and all("All test cases passed" in text_of(c) for c in checks), [text_of(c) for c in checks]
    plots = [o for c in cells_tagged(notebook, "kit-explore") for o in c.get("outputs", [])
             if "image/png" in o.get("data", {})]
    # An assignment need not have exploration cells (docs/authoring.md); those it has draw their plot.
    assert plots or not cells_tagged(notebook, "kit-explore"), "the exploration cells draw their plot"


@pytest.mark.parametrize("name", paths.ASSIGNMENTS)
def test_student_notebook_runs_with_failed_checks_not_errors(tmp_path, name):
    notebook = execute(tmp_path, "assignments", name)
    assert not errors(notebook), "unimplemented parts must show as failed checks, not stop the notebook"
    checks = [c for c in cells_tagged(notebook, "kit-check") if "check_all" not in c.source]
    assert checks and all("replace this line with your code" in text_of(c) for c in checks)
    for cell in cells_tagged(notebook, "kit-explore"):
        assert "first" in text_of(cell), "explorations say what to implement before they can run"
