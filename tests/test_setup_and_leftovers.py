"""Set-up that fits the user: grading installs the grading dependencies only, `make test` everything, torch's
CPU build where PyTorch's CPU index answers (else the configured index's wheel, said so); and a run leaves
nothing in TMPDIR, even where HOME cannot be written (matplotlib's font cache)."""
from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from autograder import paths
from tests import settings
from tests.classroom import solution_text, write_class

TEST_TOOLING = {"pytest-xdist", "execnet", "playwright", "greenlet", "uv"}


def pins(name: str) -> dict[str, str]:
    text = (paths.ROOT / name).read_text(encoding="utf-8")
    return {m.group(1).lower(): m.group(2) for m in re.finditer(r"^([A-Za-z0-9_.-]+)==(\S+)", text, re.M)}


def dry_run(target: str, tmp_path) -> str:
    """The commands `make TARGET` runs on a fresh machine (a virtual environment that does not exist yet)."""
    run = subprocess.run(["make", "--no-print-directory", "-n", target, f"VENV={tmp_path / 'fresh'}"],
                         cwd=paths.ROOT, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    return run.stdout


def test_grading_dependencies_are_apart_from_test_tooling():
    grading, tests = pins("requirements.txt"), pins("requirements-test.txt")
    assert not TEST_TOOLING & set(grading), "a teacher who only grades gets no test tooling"
    assert TEST_TOOLING <= set(tests)
    assert "-r requirements.txt" in (paths.ROOT / "requirements-test.txt").read_text(encoding="utf-8")
    assert {"torch", "pytest", "hypothesis", "matplotlib"} <= set(grading)  # what grading itself runs


def test_make_grade_installs_grading_only_and_make_test_everything(tmp_path):
    grade, test = dry_run("grade", tmp_path), dry_run("test", tmp_path)
    for commands in (grade, test):
        assert "-r requirements.txt" in commands and "download.pytorch.org/whl/cpu" in commands
    assert "requirements-test.txt" not in grade and "requirements-test.txt" in test
    # torch: the CPU index when it answers, else the pinned wheel from pip's own configuration
    assert re.search(r"--index-url https://download\.pytorch\.org/whl/cpu[^\n]*torch==", grade)
    assert re.search(r"pip install --quiet \"?torch==", grade)


@pytest.mark.slow
@pytest.mark.parametrize("setting", [s for s in settings.SETTINGS if s.name == "user-landlock"], ids=lambda s: s.name)
def test_a_run_leaves_nothing_in_tmpdir_when_home_cannot_be_written(setting):
    """As a normal user whose home cannot be written (tests/settings.py), the issue's case; root with namespaces
    leaves nothing either, but matplotlib's fallback depends only on HOME, not on the user or the sandbox, so
    one setting is enough for the suite (add the others to the list to see it)."""
    if settings.unavailable(setting):
        pytest.skip(settings.unavailable(setting))
    base = settings.workspace(setting)
    try:
        classdir = write_class(base / "class", {s: {"attention_scores.py": solution_text("attention_scores")}
                                                for s in ("ann", "bob")})  # two students: the report has charts
        scratch = base / "tmp"
        scratch.mkdir()
        settings.give(base, setting)
        env = {"HOME": "/proc/attnkit-no-home", "TMPDIR": str(scratch),  # not creatable, not even by root
               "MPLCONFIGDIR": "", "XDG_CONFIG_HOME": "", "XDG_CACHE_HOME": ""}
        run = settings.run(setting, ["-m", "autograder.cli", "grade", str(classdir), "--out", str(base / "out"),
                                     "--workers", "1", "--isolation", setting.mode], env, timeout=900)
        assert run.returncode == 0, run.stderr[-3000:]
        assert b"<img" in (base / "out" / "report.html").read_bytes()  # the charts were drawn
        assert sorted(p.name for p in scratch.iterdir()) == []
    finally:
        shutil.rmtree(base, ignore_errors=True)
