"""The student handout as a student meets it: the README (set-up, points, what to hand in, how to run the
checks), the .py twins' exit status, --explore without a display, checks in the notebook's order."""
from __future__ import annotations

import os
import re
import subprocess
import sys
import zipfile

import nbformat
import pytest

from autograder import paths
from autograder.authoring.handout import HANDOUT_FOLDER, assignment_points, pinned_versions
from autograder.authoring.master import read_master
from autograder.authoring.release import build_release
from autograder.quiz import answer_file_name, load_quizzes


@pytest.fixture(scope="module")
def handout(tmp_path_factory):
    folder = tmp_path_factory.mktemp("handout")
    with zipfile.ZipFile(build_release(folder / "student.zip")) as packed:
        packed.extractall(folder)
    return folder / HANDOUT_FOLDER


def test_readme_states_setup_points_files_and_how_to_run(handout):
    readme = (handout / "README.md").read_text(encoding="utf-8")
    requirements = (handout / "requirements.txt").read_text(encoding="utf-8")
    for name, version in pinned_versions().items():  # the kit's own pins, in the README and the file
        assert f"{name}=={version}" in requirements and f"{name} {version}" in readme
    kit_pins = (paths.ROOT / "requirements.txt").read_text(encoding="utf-8")
    assert all(f"{n}=={v}" in kit_pins for n, v in pinned_versions().items())
    quizzes = load_quizzes(paths.QUIZZES_DIR)
    code = {name: sum(points.values()) for name, points in assignment_points().items()}
    total = sum(code.values()) + sum(q.max_score for q in quizzes.values())
    for name, points in code.items():
        assert re.search(rf"`{name}\.ipynb` or `{name}\.py` \| {points:g} \|", readme), name
        assert f"`{name}.ipynb` **or** `{name}.py`" in readme  # what to hand in
        assert (handout / name / f"{name}.ipynb").is_file() and (handout / name / f"{name}.py").is_file()
    for quiz in quizzes.values():
        assert f"`{answer_file_name(quiz)}` | {quiz.max_score:g} |" in readme
        assert (handout / "quizzes" / answer_file_name(quiz)).is_file()
    assert f"**{total:g}**" in readme
    assert "pip install -r requirements.txt" in readme and "--explore" in readme
    assert "grader.check" in readme and "exits with status 1" in readme
    # Numbers come from the sources: the masters' points markers add up to what the README says.
    masters = sum(sum(read_master(paths.SOURCE_DIR / f"{n}.py").points().values()) for n in paths.ASSIGNMENTS)
    assert masters == sum(code.values())


def test_handout_gives_no_quiz_answer_away(handout):
    text = "\n".join(p.read_text(encoding="utf-8") for p in [handout / "README.md", *(handout / "quizzes").iterdir()])
    for quiz in load_quizzes(paths.QUIZZES_DIR).values():
        assert quiz.lesson not in text  # the lesson by its name, not its internal file name
        for question in quiz.questions:
            if question.type in ("multiple_choice", "true_false", "numeric"):
                shown = str(question.answer).lower() if question.type != "numeric" else f"{question.answer:g}"
                assert not re.search(rf"^{question.id}: {re.escape(shown)}\b", text, re.M | re.I), question.id


def run_twin(folder, *args):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "MPLBACKEND")}
    return subprocess.run([sys.executable, folder.name + ".py", *args], cwd=folder, capture_output=True, text=True,
                          timeout=300, env=env)


@pytest.mark.slow
def test_python_twin_exits_non_zero_while_a_check_fails(handout):
    folder = handout / "single_head_attention"
    run = run_twin(folder)
    assert run.returncode == 1, run.stdout[-2000:] + run.stderr[-2000:]
    assert "2 of 2 checks failed: attention, SingleHeadAttention" in run.stdout


@pytest.mark.slow
def test_finished_twin_exits_zero_and_explore_saves_figures_without_a_display(handout):
    name = "single_head_attention"
    folder = handout / name
    solution = (paths.SOLUTIONS_DIR / name / f"{name}.py").read_text(encoding="utf-8")
    (folder / f"{name}.py").write_text(solution.replace(f"'../../assignments/{name}/tests'", "'tests'"), encoding="utf-8")
    run = run_twin(folder, "--explore")
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert "All 2 checks passed." in run.stdout
    saved = re.findall(r"No display: figure saved to (.+\.png)", run.stdout)
    assert saved and all(os.path.isfile(path) and os.path.getsize(path) > 1000 for path in saved)


@pytest.mark.parametrize("name", paths.ASSIGNMENTS)
def test_every_check_runs_in_notebook_order(name):
    master = read_master(paths.SOURCE_DIR / f"{name}.py")
    order = [e for e in master.exercises() if master.has_public(e)]  # written or generated from a spec
    notebook = nbformat.read(paths.ASSIGNMENTS_DIR / name / f"{name}.ipynb", as_version=4)
    last = notebook.cells[-1]
    assert f"for question in {order!r}:" in last.source and "check_all" not in last.source
    twin = (paths.ASSIGNMENTS_DIR / name / f"{name}.py").read_text(encoding="utf-8")
    assert f"for question in {order!r}:" in twin
    assert order != sorted(order) or len(order) < 2
