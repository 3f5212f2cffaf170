"""How the suite shares the machine's cores, and what its modules share once per run.

`make test` runs the suite on two pytest-xdist workers with `--dist loadgroup`. Every test is put in an
xdist group: its module's, or a shared one (SHARED), so a module's tests run on one worker and its module
and session fixtures are built once; modules of a shared group run one after the other on one worker.
Groups are dealt heaviest first (HEAVY, with `--no-loadscope-reorder`), so the longest ones start at once
and the light modules fill the other worker around them. Without xdist the markers do nothing.
"""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from autograder import paths
from hypothesis import settings

# Generated inputs are the same on every run (CI included): a generator that finds a new case finds it on a
# developer's machine first, never as a one-off red CI run. Tests that set their own settings inherit this.
settings.register_profile("kit", derandomize=True, database=None, deadline=None)
settings.load_profile("kit")

# The repair search (autograder/repair/) is off for the suite but for tests/test_repair.py and the adversarial
# classes (tests/test_adversarial.py), which switch it back on: it reruns a failed part's checks for edits of the
# student's code, which would add minutes to the catalogue's classes of failing students without being what they
# test. Its verdicts, cost and edits are tested in test_repair.py and measured by bench/bench_repairs.py.
os.environ.setdefault("ATTNKIT_REPAIR", "off")

SHARED = {
    # test_adversarial compares the System V IPC objects of the whole host before and after its attackers
    # ran; test_sandbox's children try to make such objects: never side by side.
    "tests/test_adversarial.py": "host-ipc",
    "tests/test_sandbox.py": "host-ipc",
    # both read the demo class graded once through the command line (demo_graded below)
    "tests/test_grading.py": "demo-class",
    "tests/test_reports.py": "demo-class",
}

# The groups that take longest (measured with --durations), longest first; the rest keep their order.
HEAVY = [
    "host-ipc",
    "tests/test_catalogue.py",
    "tests/test_gradescope.py",
    "tests/test_property_probes.py",
    "tests/test_seed_sweep.py",
    "tests/test_notebooks.py",
    "tests/test_submissions.py",
    "tests/quiz/test_quiz_review_page.py",  # ~95-110 s: a browser clears a 40-student class
    "demo-class",
    "tests/test_platform_outputs.py",
    "tests/test_isolation.py",
]


def group_of(item: pytest.Item) -> str:
    module = item.nodeid.split("::", 1)[0]
    return SHARED.get(module, module)


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook, which reads the groups
def pytest_collection_modifyitems(config, items):
    for item in items:
        if not item.get_closest_marker("xdist_group"):
            item.add_marker(pytest.mark.xdist_group(group_of(item)))
    rank = {group: index for index, group in enumerate(HEAVY)}
    items.sort(key=lambda item: rank.get(group_of(item), len(HEAVY)))  # stable: module order kept


@pytest.fixture(scope="session")
def demo_graded(tmp_path_factory):
    """(OUT, finished process): the demo class graded once through `attnkit grade`, as a teacher first runs it."""
    out = tmp_path_factory.mktemp("demo-out")
    run = subprocess.run([sys.executable, "-m", "autograder.cli", "grade", "--out", str(out)], cwd=paths.ROOT,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    return out, run


@pytest.fixture(scope="module")
def one_torch_thread():
    """Torch on one thread for a module of small tensors (the grading worker runs with one too); restored after."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
