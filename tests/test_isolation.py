"""Choosing the isolation, refusing to grade without any, and saying so in every output.

Through the real command line, on a two-student class: without namespaces and without Landlock
(bubblewrap hidden, Landlock switched off) the kit refuses; with --allow-weak-isolation it grades
and its risk is in the terminal, the report and every results file. And a disk that fills up
ends the run with one sentence, after which the same command finishes the class.
"""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from autograder import paths
from autograder.results import load
from autograder.sandbox import ForkServer, SandboxConfig
from autograder.sandbox.child.zygote import world_traversable
from autograder.sandbox.isolation import landlock_abi, python_paths
from tests.classroom import solution_text, stub_text, write_class
from tests.settings import ROOT, Setting, run

pytestmark = pytest.mark.slow
NO_ISOLATION = {"ATTNKIT_BWRAP": "", "ATTNKIT_LANDLOCK": "0"}
HERE = Setting("here", user=False, namespaces=False)
CLASS = {"ana": {f"{a}.py": solution_text(a) for a in paths.ASSIGNMENTS},
         "ben": {f"{a}.py": stub_text(a) for a in paths.ASSIGNMENTS}}


def cli(args: list[str], env: dict, readable: bool = False) -> subprocess.CompletedProcess:
    return run(HERE, ["-m", "autograder.cli", "grade", *args], {**env, "COLUMNS": "200"}, readable=readable)


@pytest.fixture(scope="module")
def classdir(tmp_path_factory):
    base = tmp_path_factory.mktemp("isolation")
    base.chmod(0o755)
    return write_class(base / "class", CLASS)


def test_refuses_to_grade_without_namespaces_or_landlock(classdir, tmp_path):
    done = cli([str(classdir), "--out", str(tmp_path / "out")], NO_ISOLATION)
    said = " ".join((done.stdout + done.stderr).split())
    assert done.returncode == 3, said
    assert "Refusing to grade: student code cannot be isolated here" in said and "--allow-weak-isolation" in said
    assert "Traceback" not in said
    assert not list((tmp_path / "out").rglob("*.json")), "nothing may be graded"


def test_weak_isolation_says_its_risk_everywhere(classdir, tmp_path):
    """Readable: as root, the weak mode needs a Python that the sandbox's uid can read (no Landlock
    to bound a capability with); the test's portable copy is one."""
    out = tmp_path / "out"
    done = cli([str(classdir), "--out", str(out), "--allow-weak-isolation"], NO_ISOLATION, readable=True)
    said = " ".join((done.stdout + done.stderr).split())
    assert done.returncode == 0, said[-3000:]
    assert "WARNING: weak isolation (--allow-weak-isolation)" in said  # when grading starts
    assert "graded with isolation 'rlimits'. WARNING: weak isolation" in said  # in the summary
    assert "NOT sandboxed" in (out / "report.html").read_text(encoding="utf-8")
    for sid in CLASS:
        assert load(out / ".state" / f"{sid}.json").isolation == "rlimits"
        data = json.loads((out / "results" / f"{sid}.json").read_text(encoding="utf-8"))
        hidden = [t for t in data["tests"] if "isolation" in t["tags"]]
        assert len(hidden) == 1 and hidden[0]["visibility"] == "hidden" and "WARNING" in hidden[0]["output"]
        assert "NOT sandboxed" in data["extra_data"]["isolation_notice"]
    assert load(out / ".state" / "ana.json").score > 0 and load(out / ".state" / "ben.json").score == 0


@pytest.mark.skipif(not landlock_abi(), reason="no Landlock on this kernel")
@pytest.mark.skipif(not ROOT, reason="as a normal user the child keeps the user's own uid")
def test_root_without_namespaces_reads_python_under_a_private_folder():
    """A Python under /root or a mktemp folder: the child's own uid cannot reach it, so it keeps
    CAP_DAC_READ_SEARCH, bounded by Landlock; lazy imports work and nothing else becomes readable."""
    private = not all(world_traversable(p) for p in python_paths())
    if not private:
        pytest.skip("this Python is readable by every user; the portable copy in tests/settings.py is too")
    server = ForkServer(SandboxConfig(isolation="landlock"))
    server.start()
    try:
        assert server.hello["read_search"] is True
        child = server.spawn()
        code = ("import os, numpy.testing, email.mime.text\nprint('imported')\n"
                "for p in [%r, '/etc/shadow', %r]:\n"
                "    try:\n        open(p).read(1); print('READ', p)\n    except OSError as e:\n"
                "        print('denied', type(e).__name__)\n"
                % (str(Path("~root").expanduser() / ".bashrc"),  # root's own files stay closed
                   str(paths.SOLUTIONS_DIR / "attention_scores" / "attention_scores.py")))
        reply = child.request({"op": "load", "module": "p", "filename": "p.py", "cells": [code]}, 20)
        assert reply["errors"] == [] and "imported" in reply["stdout"] and "READ" not in reply["stdout"]
    finally:
        server.close()


@pytest.mark.skipif(not ROOT or shutil.which("mount") is None, reason="needs root to mount a small file system")
def test_a_full_disk_ends_with_one_sentence_and_resumes(classdir, tmp_path):
    big = write_class(tmp_path / "big", {f"s{i}": CLASS["ana" if i % 2 else "ben"] for i in range(6)})
    out = tmp_path / "small-disk"
    out.mkdir()
    # 256 KiB holds the manifests and a few students' results (about 20 KB each), not all six and the report
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(out)]).returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        full = cli([str(big), "--out", str(out)], {})
        said = " ".join((full.stdout + full.stderr).split())
        assert full.returncode == 3, said[-2000:]
        assert f"The disk holding {out} is full: grading stopped." in said and "Traceback" not in said
        subprocess.run(["mount", "-o", "remount,size=64m", str(out)], check=True)
        kept = {p.name: p.stat().st_mtime_ns for p in (out / ".state").glob("*.json")}
        resumed = cli([str(big), "--out", str(out)], {})
        assert resumed.returncode == 0, resumed.stdout[-2000:] + resumed.stderr[-2000:]
        results = {f"s{i}": load(out / ".state" / f"s{i}.json") for i in range(6)}
        assert all(not r.grader_errors and r.fingerprint for r in results.values())
        assert [r.score > 0 for r in results.values()] == [i % 2 == 1 for i in range(6)]  # solution / handout
        assert kept and all((out / ".state" / name).stat().st_mtime_ns == stamp  # finished students are kept
                            for name, stamp in kept.items())
        assert not list(out.rglob("*.tmp")) and not list(out.rglob(".work-*"))
    finally:
        subprocess.run(["umount", "-l", str(out)])


def test_bubblewraps_self_test_started_early_gives_the_verdict_a_fresh_one_gives(tmp_path, monkeypatch):
    """The CLI and the Gradescope entry start bubblewrap's self-test before reading the class; what it
    answers is what the self-test run at resolve time answers: for a bubblewrap that works (where one
    does), one that fails, one that is missing, and when the bubblewrap named changed in between."""
    from autograder.sandbox import isolation

    failing = tmp_path / "bwrap-failing"
    failing.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    failing.chmod(0o755)
    choices = [str(failing), ""] + (["bwrap"] if shutil.which("bwrap") else [])
    for chosen in choices:
        monkeypatch.setenv("ATTNKIT_BWRAP", chosen)
        fresh = isolation.bwrap_works()
        isolation.probe_bwrap_early()
        assert isolation.bwrap_works() == fresh, chosen
        assert isolation._early_probe is None  # collected once
    monkeypatch.setenv("ATTNKIT_BWRAP", str(failing))
    isolation.probe_bwrap_early()
    monkeypatch.setenv("ATTNKIT_BWRAP", "")
    assert isolation.bwrap_works()[0] is False and "not installed" in isolation.bwrap_works()[1]
    if shutil.which("bwrap"):
        monkeypatch.setenv("ATTNKIT_BWRAP", str(failing))
        isolation.probe_bwrap_early()
        monkeypatch.setenv("ATTNKIT_BWRAP", "bwrap")
        assert isolation.bwrap_works() == (True, "bubblewrap"), "the probe of another bubblewrap was used"
